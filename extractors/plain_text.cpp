#include "extractors/plain_text.hpp"

#include "extractors/text_clean.hpp"

#include <string_view>

namespace extractors {

TextResult extract_plain_text(std::span<const unsigned char> bytes) {
    TextResult result;
    result.method = "plain";
    result.text = decode_text(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    return result;
}

} // namespace extractors
