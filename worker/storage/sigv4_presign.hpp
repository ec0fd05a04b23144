#pragma once

#include <ctime>
#include <string>

namespace worker {

/// What a presigned GET needs: the credentials, the scope and the request's parts.
struct PresignRequest {
    std::string access_key, secret_key, session_token;
    std::string region = "us-east-1";
    std::string host;     ///< "examplebucket.s3.amazonaws.com" (the Host header the URL will send)
    std::string path;     ///< the URI-encoded path, "/test.txt"
    std::string url_base; ///< "https://examplebucket.s3.amazonaws.com/test.txt" (the URL before '?')
    std::time_t now = 0;  ///< signing time
    int expires_s = 900;  ///< validity, at most 604800
};

/// A presigned GET URL (SigV4 query signing, UNSIGNED-PAYLOAD, host the only signed header).
/// libcurl signs requests but does not presign, so this is the one signature computed here,
/// with OpenSSL's HMAC-SHA256; checked against the AWS documentation's example.
std::string presign_get(const PresignRequest& request);

} // namespace worker
