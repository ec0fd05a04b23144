#include "worker/storage/sigv4_presign.hpp"

#include "worker/storage/s3_location.hpp"

#include <array>

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace worker {
namespace {

using Digest = std::array<unsigned char, 32>;

Digest hmac(const std::string& key, const std::string& data) {
    Digest out{};
    unsigned int len = 0;
    HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
         data.size(), out.data(), &len);
    return out;
}

std::string raw(const Digest& d) {
    return std::string(reinterpret_cast<const char*>(d.data()), d.size());
}

std::string hex(const unsigned char* p, std::size_t n) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (std::size_t i = 0; i < n; ++i) {
        s += digits[p[i] >> 4];
        s += digits[p[i] & 15];
    }
    return s;
}

std::string sha256_hex(const std::string& data) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
    return hex(md, len);
}

std::string utc(std::time_t t, const char* format) {
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, format, &tm);
    return buf;
}

} // namespace

std::string presign_get(const PresignRequest& r) {
    const std::string date = utc(r.now, "%Y%m%d"), stamp = utc(r.now, "%Y%m%dT%H%M%SZ");
    const std::string scope = date + "/" + r.region + "/s3/aws4_request";
    // Query parameters in sorted order, each encoded once.
    std::string query = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=" + uri_encode(r.access_key + "/" + scope) +
                        "&X-Amz-Date=" + stamp + "&X-Amz-Expires=" + std::to_string(r.expires_s);
    if (!r.session_token.empty()) query += "&X-Amz-Security-Token=" + uri_encode(r.session_token);
    query += "&X-Amz-SignedHeaders=host";
    const std::string canonical = "GET\n" + r.path + "\n" + query + "\nhost:" + r.host + "\n\nhost\nUNSIGNED-PAYLOAD";
    const std::string to_sign = "AWS4-HMAC-SHA256\n" + stamp + "\n" + scope + "\n" + sha256_hex(canonical);
    const Digest k_date = hmac("AWS4" + r.secret_key, date);
    const Digest k_region = hmac(raw(k_date), r.region);
    const Digest k_service = hmac(raw(k_region), "s3");
    const Digest k_signing = hmac(raw(k_service), "aws4_request");
    const Digest signature = hmac(raw(k_signing), to_sign);
    return r.url_base + "?" + query + "&X-Amz-Signature=" + hex(signature.data(), signature.size());
}

} // namespace worker
