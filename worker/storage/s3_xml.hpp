#pragma once

#include <string>
#include <vector>

namespace worker {

/// An S3 error reply (<Error><Code>NoSuchKey</Code><Message>…</Message></Error>).
struct S3ErrorReply {
    std::string code;
    std::string message;
};

/// One page of ListObjectsV2.
struct S3ListPage {
    std::vector<std::string> keys;
    bool truncated = false;
    std::string next_token;
};

/// Parses an error reply; empty fields when `xml` is not one (libxml2, no network access).
S3ErrorReply parse_s3_error(const std::string& xml);

/// Parses a ListObjectsV2 reply; false when `xml` is not one.
bool parse_s3_list(const std::string& xml, S3ListPage& page);

} // namespace worker
