#include "worker/storage/s3_location.hpp"

#include <cstdlib>

namespace worker {
namespace {

std::string env(const char* name, const std::string& fallback = {}) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

bool valid_bucket(const std::string& b) {
    if (b.size() < 3 || b.size() > 63) return false;
    for (char c : b) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
                        (c >= 'A' && c <= 'Z');
        if (!ok) return false;
    }
    return true;
}

bool valid_prefix(const std::string& p) {
    for (char c : p) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                        c == '.' || c == '_' || c == '/';
        if (!ok) return false;
    }
    const std::string segments = "/" + p + "/";
    return p.find("//") == std::string::npos && segments.find("/./") == std::string::npos &&
           segments.find("/../") == std::string::npos;
}

// "https://host:port/" -> scheme "https://", authority "host:port"
void split_endpoint(const std::string& endpoint, std::string& scheme, std::string& authority) {
    const auto sep = endpoint.find("://");
    scheme = sep == std::string::npos ? "https://" : endpoint.substr(0, sep + 3);
    authority = sep == std::string::npos ? endpoint : endpoint.substr(sep + 3);
    const auto slash = authority.find('/');
    if (slash != std::string::npos) authority.resize(slash);
}

} // namespace

bool is_s3_root(const std::string& root) {
    return root.rfind("s3://", 0) == 0;
}

std::string uri_encode(const std::string& s, bool keep_slash) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size());
    for (unsigned char c : s) {
        const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                                c == '-' || c == '.' || c == '_' || c == '~';
        if (unreserved || (keep_slash && c == '/')) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

std::optional<S3Location> parse_s3_location(const std::string& root, std::string& problem) {
    if (!is_s3_root(root)) {
        problem = "not an s3:// URL";
        return std::nullopt;
    }
    S3Location loc;
    const std::string rest = root.substr(5);
    const auto slash = rest.find('/');
    loc.bucket = rest.substr(0, slash);
    std::string prefix = slash == std::string::npos ? std::string() : rest.substr(slash + 1);
    while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
    if (!valid_bucket(loc.bucket)) {
        problem = "invalid bucket name in " + root;
        return std::nullopt;
    }
    if (!valid_prefix(prefix)) {
        problem = "invalid prefix in " + root + " (segments of [A-Za-z0-9._-])";
        return std::nullopt;
    }
    loc.prefix = prefix.empty() ? prefix : prefix + "/";
    loc.region = env("AWS_REGION", env("AWS_DEFAULT_REGION", "us-east-1"));
    std::string endpoint = env("AWS_ENDPOINT_URL_S3", env("AWS_ENDPOINT_URL"));
    const bool custom_endpoint = !endpoint.empty();
    if (!custom_endpoint) endpoint = "https://s3." + loc.region + ".amazonaws.com";
    while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
    loc.endpoint = endpoint;
    const std::string addressing = env("INGEST_S3_ADDRESSING", custom_endpoint ? "path" : "virtual");
    if (addressing != "path" && addressing != "virtual") {
        problem = "INGEST_S3_ADDRESSING must be path or virtual, not " + addressing;
        return std::nullopt;
    }
    loc.path_style = addressing == "path";
    loc.access_key = env("AWS_ACCESS_KEY_ID");
    loc.secret_key = env("AWS_SECRET_ACCESS_KEY");
    loc.session_token = env("AWS_SESSION_TOKEN");
    return loc;
}

std::string S3Location::host() const {
    std::string scheme, authority;
    split_endpoint(endpoint, scheme, authority);
    return path_style ? authority : bucket + "." + authority;
}

std::string S3Location::bucket_url() const {
    std::string scheme, authority;
    split_endpoint(endpoint, scheme, authority);
    return path_style ? scheme + authority + "/" + bucket : scheme + bucket + "." + authority;
}

std::string S3Location::object_url(const std::string& key) const {
    return bucket_url() + "/" + uri_encode(prefix + key, true);
}

std::string S3Location::copy_source(const std::string& key) const {
    return "/" + bucket + "/" + uri_encode(prefix + key, true);
}

std::string S3Location::describe(const std::string& key) const {
    return "s3://" + bucket + "/" + prefix + key;
}

} // namespace worker
