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

/// What an operator should check for an S3 error code about credentials, region or clock
/// ("" for other codes), e.g. SignatureDoesNotMatch → "check AWS_SECRET_ACCESS_KEY".
std::string s3_error_hint(const std::string& code);

/// Parses a ListObjectsV2 reply; false when `xml` is not one.
bool parse_s3_list(const std::string& xml, S3ListPage& page);

/// One <Error> entry of a DeleteObjects reply.
struct S3DeleteError {
    std::string key;
    std::string code;
    std::string message;
};

/// Parses a DeleteObjects reply (<DeleteResult>) into its <Error> entries; false when `xml`
/// is not one.
bool parse_s3_delete_result(const std::string& xml, std::vector<S3DeleteError>& errors);

/// The DeleteObjects request body for `keys` (quiet: the reply lists only the failures).
std::string s3_delete_body(const std::vector<std::string>& keys);

} // namespace worker
