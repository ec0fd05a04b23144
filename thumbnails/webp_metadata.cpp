#include "thumbnails/webp_metadata.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace thumbnails {

namespace {

// VP8X feature flags (first payload byte), from the WebP container specification.
constexpr unsigned char k_flag_icc = 0x20;
constexpr unsigned char k_flag_exif = 0x08;
constexpr unsigned char k_flag_xmp = 0x04;

std::uint32_t read_le32(std::string_view bytes, std::size_t at) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at])) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 1])) << 8 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 2])) << 16 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 3])) << 24;
}

void append_le32(std::string& out, std::uint32_t value) {
    for (int shift = 0; shift < 32; shift += 8) {
        out.push_back(static_cast<char>((value >> shift) & 0xff));
    }
}

struct Chunk {
    std::string_view fourcc;
    std::string payload; // without the padding byte
};

} // namespace

std::string strip_webp_metadata(std::string_view webp) {
    if (webp.size() < 12 || webp.substr(0, 4) != "RIFF" || webp.substr(8, 4) != "WEBP") {
        throw std::runtime_error("the WebP encoder returned something that is not a WebP file");
    }
    const std::size_t end = std::min<std::size_t>(webp.size(), std::size_t{8} + read_le32(webp, 4));
    std::vector<Chunk> kept;
    std::size_t at = 12;
    while (at < end) {
        if (end - at < 8) {
            throw std::runtime_error("the WebP file ends inside a chunk header");
        }
        const std::string_view fourcc = webp.substr(at, 4);
        const std::size_t length = read_le32(webp, at + 4);
        if (length > end - at - 8) {
            throw std::runtime_error("a WebP chunk runs past the end of the file");
        }
        if (fourcc != "EXIF" && fourcc != "XMP " && fourcc != "ICCP") {
            Chunk chunk{fourcc, std::string(webp.substr(at + 8, length))};
            if (fourcc == "VP8X" && !chunk.payload.empty()) {
                chunk.payload[0] = static_cast<char>(static_cast<unsigned char>(chunk.payload[0]) &
                                                     ~(k_flag_icc | k_flag_exif | k_flag_xmp));
            }
            kept.push_back(std::move(chunk));
        }
        at += 8 + length + (length & 1);
    }
    // VP8X with no feature left in front of one plain bitstream is the simple format.
    if (kept.size() == 2 && kept[0].fourcc == "VP8X" && !kept[0].payload.empty() && kept[0].payload[0] == 0 &&
        (kept[1].fourcc == "VP8 " || kept[1].fourcc == "VP8L")) {
        kept.erase(kept.begin());
    }
    std::string body = "WEBP";
    for (const Chunk& chunk : kept) {
        body.append(chunk.fourcc);
        append_le32(body, static_cast<std::uint32_t>(chunk.payload.size()));
        body += chunk.payload;
        if (chunk.payload.size() & 1) {
            body.push_back('\0');
        }
    }
    std::string out = "RIFF";
    append_le32(out, static_cast<std::uint32_t>(body.size()));
    out += body;
    return out;
}

} // namespace thumbnails
