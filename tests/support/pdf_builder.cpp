#include "tests/support/pdf_builder.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include <zlib.h>

namespace testsupport {

namespace {

// A PDF literal string: backslash, parentheses escaped; everything else is Latin text here.
std::string pdf_string(const std::string& text) {
    std::string out = "(";
    for (char c : text) {
        if (c == '\\' || c == '(' || c == ')') out += '\\';
        out += c;
    }
    return out + ")";
}

std::string kids_of(const std::vector<int>& pages) {
    std::string kids;
    for (int p : pages) kids += std::to_string(p) + " 0 R ";
    return kids;
}

// Catalog and page tree for pages already added with /Parent `tree`; returns the catalog.
int add_page_tree(PdfBuilder& pdf, int tree, const std::vector<int>& pages) {
    pdf.set(tree, "<< /Type /Pages /Kids [" + kids_of(pages) + "] /Count " + std::to_string(pages.size()) + " >>");
    return pdf.add("<< /Type /Catalog /Pages " + std::to_string(tree) + " 0 R >>");
}

} // namespace

int PdfBuilder::reserve() {
    m_bodies.emplace_back();
    m_set.push_back(false);
    return static_cast<int>(m_bodies.size());
}

void PdfBuilder::set(int number, const std::string& body) {
    m_bodies.at(static_cast<std::size_t>(number - 1)) = body;
    m_set.at(static_cast<std::size_t>(number - 1)) = true;
}

int PdfBuilder::add(const std::string& body) {
    const int n = reserve();
    set(n, body);
    return n;
}

int PdfBuilder::add_stream(const std::string& entries, const std::string& data) {
    return add("<< " + entries + " /Length " + std::to_string(data.size()) + " >>\nstream\n" + data + "\nendstream");
}

std::string PdfBuilder::finish(int root) const {
    std::string out = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
    std::vector<std::size_t> offsets;
    for (std::size_t i = 0; i < m_bodies.size(); ++i) {
        if (!m_set[i]) throw std::logic_error("PDF object " + std::to_string(i + 1) + " reserved but never set");
        offsets.push_back(out.size());
        out += std::to_string(i + 1) + " 0 obj\n" + m_bodies[i] + "\nendobj\n";
    }
    const std::size_t xref = out.size();
    out += "xref\n0 " + std::to_string(m_bodies.size() + 1) + "\n0000000000 65535 f \n";
    for (std::size_t off : offsets) {
        char line[24];
        std::snprintf(line, sizeof line, "%010zu 00000 n \n", off);
        out += line;
    }
    out += "trailer\n<< /Size " + std::to_string(m_bodies.size() + 1) + " /Root " + std::to_string(root) +
           " 0 R >>\nstartxref\n" + std::to_string(xref) + "\n%%EOF\n";
    return out;
}

std::string text_pdf(const std::vector<std::string>& pages) {
    PdfBuilder pdf;
    const int tree = pdf.reserve();
    const int font = pdf.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
    std::vector<int> page_ids;
    for (const auto& text : pages) {
        std::ostringstream content;
        content << "BT /F1 12 Tf 72 720 Td 14 TL\n";
        std::istringstream lines(text);
        for (std::string line; std::getline(lines, line);) content << pdf_string(line) << " Tj T*\n";
        content << "ET\n";
        const int stream = pdf.add_stream("", content.str());
        page_ids.push_back(pdf.add("<< /Type /Page /Parent " + std::to_string(tree) +
                                   " 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 " + std::to_string(font) +
                                   " 0 R >> >> /Contents " + std::to_string(stream) + " 0 R >>"));
    }
    return pdf.finish(add_page_tree(pdf, tree, page_ids));
}

std::string scanned_pdf(const std::string& jpeg, int width, int height, int pages) {
    PdfBuilder pdf;
    const int tree = pdf.reserve();
    const int image =
        pdf.add_stream("/Type /XObject /Subtype /Image /Width " + std::to_string(width) + " /Height " +
                           std::to_string(height) + " /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode",
                       jpeg);
    const int content = pdf.add_stream("", "q 612 0 0 792 0 0 cm /Im0 Do Q\n");
    std::vector<int> page_ids;
    for (int i = 0; i < pages; ++i) {
        page_ids.push_back(pdf.add("<< /Type /Page /Parent " + std::to_string(tree) +
                                   " 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im0 " +
                                   std::to_string(image) + " 0 R >> >> /Contents " + std::to_string(content) +
                                   " 0 R >>"));
    }
    return pdf.finish(add_page_tree(pdf, tree, page_ids));
}

std::string flate_zeros(std::uint64_t count) {
    // Raw deflate of one MiB of zeros ended by a sync flush (byte-aligned, not final, no
    // reference outside itself) can be repeated; a final empty block and the zlib header and
    // Adler-32 of the zeros (a = 1, b = count mod 65521) make it a zlib stream.
    constexpr std::uint64_t chunk = 1u << 20;
    auto deflate_raw = [](std::uint64_t n, int flush) {
        z_stream z{};
        if (deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
            throw std::runtime_error("deflateInit2");
        std::string in(n, '\0'), out(n / 100 + 64, '\0');
        z.next_in = reinterpret_cast<Bytef*>(in.data());
        z.avail_in = static_cast<uInt>(n);
        z.next_out = reinterpret_cast<Bytef*>(out.data());
        z.avail_out = static_cast<uInt>(out.size());
        deflate(&z, flush);
        out.resize(out.size() - z.avail_out);
        deflateEnd(&z);
        return out;
    };
    const std::string block = deflate_raw(chunk, Z_SYNC_FLUSH);
    std::string out = "\x78\xda";
    for (std::uint64_t done = 0; done < count; done += chunk) {
        out += count - done >= chunk ? block : deflate_raw(count - done, Z_SYNC_FLUSH);
    }
    out += deflate_raw(0, Z_FINISH);
    const std::uint32_t adler = static_cast<std::uint32_t>((count % 65521) << 16 | 1);
    for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((adler >> shift) & 0xFF);
    return out;
}

std::pair<std::string, std::string> zero_image(int width, int height, const std::string& extra) {
    return {"/Type /XObject /Subtype /Image /Width " + std::to_string(width) + " /Height " + std::to_string(height) +
                " /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode " + extra,
            flate_zeros(std::uint64_t(width) * std::uint64_t(height))};
}

std::string zero_image_pdf(int width, int height) {
    PdfBuilder pdf;
    const int tree = pdf.reserve();
    const auto [entries, data] = zero_image(width, height);
    const int image = pdf.add_stream(entries, data);
    const int content = pdf.add_stream("", "q 612 0 0 792 0 0 cm /Im0 Do Q\n");
    const int page = pdf.add("<< /Type /Page /Parent " + std::to_string(tree) +
                             " 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im0 " + std::to_string(image) +
                             " 0 R >> >> /Contents " + std::to_string(content) + " 0 R >>");
    return pdf.finish(add_page_tree(pdf, tree, {page}));
}

namespace {

// The 1-bit rows of stencil_slide_pdf's mask, deflated row by row (a big mask is never whole
// in memory).
std::string stencil_rows(int width, int height) {
    z_stream z{};
    if (deflateInit(&z, 6) != Z_OK) throw std::runtime_error("deflateInit");
    std::string out;
    std::string row(static_cast<std::size_t>((width + 7) / 8), '\0');
    char buf[1 << 16];
    const long cx = width / 2, cy = height / 2, r = std::min(width, height) / 3;
    for (int y = 0; y < height; ++y) {
        const bool opaque = (long(y) * 8 / height) % 2 == 0;
        std::fill(row.begin(), row.end(), opaque ? '\xff' : '\0');
        const long dy = y - cy;
        if (dy * dy < r * r) {
            const long half = std::lround(std::sqrt(double(r * r - dy * dy)));
            std::fill(row.begin() + (cx - half) / 8, row.begin() + (cx + half) / 8, opaque ? '\0' : '\xff');
        }
        z.next_in = reinterpret_cast<Bytef*>(row.data());
        z.avail_in = static_cast<uInt>(row.size());
        const int flush = y + 1 == height ? Z_FINISH : Z_NO_FLUSH;
        do {
            z.next_out = reinterpret_cast<Bytef*>(buf);
            z.avail_out = sizeof buf;
            deflate(&z, flush);
            out.append(buf, sizeof buf - z.avail_out);
        } while (z.avail_out == 0 || (flush == Z_FINISH && z.avail_in > 0));
    }
    deflateEnd(&z);
    return out;
}

} // namespace

std::string stencil_slide_pdf(int mask_width, int mask_height) {
    PdfBuilder pdf;
    const int tree = pdf.reserve();
    const int mask = pdf.add_stream("/Type /XObject /Subtype /Image /Width " + std::to_string(mask_width) +
                                        " /Height " + std::to_string(mask_height) +
                                        " /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /FlateDecode",
                                    stencil_rows(mask_width, mask_height));
    const int image = pdf.add_stream("/Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceRGB "
                                     "/BitsPerComponent 8 /Interpolate true /SMask " +
                                         std::to_string(mask) + " 0 R",
                                     std::string("\x1f\x4e\x79\x1f\x4e\x79\x1f\x4e\x79\x1f\x4e\x79", 12));
    const int content = pdf.add_stream("", "q 960 0 0 540 0 0 cm /Im0 Do Q\n");
    const int page = pdf.add("<< /Type /Page /Parent " + std::to_string(tree) +
                             " 0 R /MediaBox [0 0 960 540] /Resources << /XObject << /Im0 " + std::to_string(image) +
                             " 0 R >> >> /Contents " + std::to_string(content) + " 0 R >>");
    return pdf.finish(add_page_tree(pdf, tree, {page}));
}

} // namespace testsupport
