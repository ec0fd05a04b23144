#pragma once

#include <optional>
#include <string>

namespace worker {

/// Where the object store is and how to reach it: `s3://BUCKET[/PREFIX]` plus the AWS
/// conventions (AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
/// AWS_SESSION_TOKEN, INGEST_S3_ADDRESSING). Holds secrets: never log it whole.
struct S3Location {
    std::string bucket;
    std::string prefix;   ///< "" or "a/b/" (always ending in '/')
    std::string endpoint; ///< "https://s3.us-east-1.amazonaws.com" or AWS_ENDPOINT_URL, no trailing '/'
    std::string region = "us-east-1";
    std::string access_key, secret_key, session_token;
    bool path_style = false; ///< path addressing (endpoint/bucket/key) or virtual (bucket.endpoint/key)

    /// The base URL of the bucket, without a trailing '/': "http://127.0.0.1:9000/uploads".
    std::string bucket_url() const;
    /// The URL of the object `prefix + key` (keys are [A-Za-z0-9._-/], so nothing to escape).
    std::string object_url(const std::string& key) const;
    /// The path part of that URL, as the S3 API wants it in x-amz-copy-source.
    std::string copy_source(const std::string& key) const;
    /// "s3://bucket/prefix/key" for messages.
    std::string describe(const std::string& key) const;
    /// The host part of the endpoint of the bucket ("bucket.s3.amazonaws.com", "127.0.0.1:9000").
    std::string host() const;
};

/// True when `root` names the object store (starts with "s3://").
bool is_s3_root(const std::string& root);

/// Parses `s3://BUCKET[/PREFIX]` and reads the AWS variables from the environment; nullopt
/// with `problem` set when the URL or a setting is malformed.
std::optional<S3Location> parse_s3_location(const std::string& root, std::string& problem);

/// RFC 3986 percent-encoding of everything but unreserved characters (and '/' when `keep_slash`).
std::string uri_encode(const std::string& s, bool keep_slash = false);

} // namespace worker
