#pragma once

#include <string>
#include <vector>

namespace testsupport {

/// Builds a small PDF object by object; `finish` adds the cross-reference table and trailer
/// with exact offsets, so the file needs no repair by the reader.
class PdfBuilder {
public:
    /// Reserves the next object number; its body is given later with `set`.
    int reserve();

    /// Sets the body of object `number` (the text between `N 0 obj` and `endobj`).
    void set(int number, const std::string& body);

    /// Adds an object with `body`; returns its number.
    int add(const std::string& body);

    /// Adds a stream object whose dictionary holds `entries` (without `<<` `>>`) and /Length.
    int add_stream(const std::string& entries, const std::string& data);

    /// The whole file with /Root `root`; throws std::logic_error when an object was never set.
    std::string finish(int root) const;

private:
    std::vector<std::string> m_bodies;
    std::vector<bool> m_set;
};

/// A PDF with one Letter page per element of `pages`, each line of it set in Helvetica: a
/// text layer that Poppler reads back as written.
std::string text_pdf(const std::vector<std::string>& pages);

/// A PDF of `pages` Letter pages, each showing the greyscale JPEG `jpeg` (`width` x `height`
/// pixels) edge to edge: a scan without a text layer, which the worker OCRs.
std::string scanned_pdf(const std::string& jpeg, int width, int height, int pages);

} // namespace testsupport
