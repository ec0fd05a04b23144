#include "tests/support/pdf_builder.hpp"

#include <cstdio>
#include <sstream>
#include <stdexcept>

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

} // namespace testsupport
