// Plain text: BOM detection, UTF-16/32 conversion, invalid sequences replaced.
#include "extractors/plain_text.hpp"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto r = extractors::extract_plain_text({data, size});
    // The contract: the text is valid UTF-8 whatever the input.
    const auto* p = reinterpret_cast<const unsigned char*>(r.text.data());
    std::size_t i = 0, n = r.text.size();
    while (i < n) {
        unsigned char c = p[i];
        std::size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (len == 0 || i + len > n) std::abort();
        for (std::size_t k = 1; k < len; ++k) {
            if ((p[i + k] & 0xC0) != 0x80) std::abort();
        }
        i += len;
    }
    return 0;
}
