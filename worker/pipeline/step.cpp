#include "worker/pipeline/step.hpp"

#include "core/layout.hpp"

namespace worker {

std::string_view field_prefix(Step step) {
    return step == Step::text ? "extraction" : "thumbnail";
}

std::string status_field(Step step) {
    return std::string(field_prefix(step)) + "_status";
}

std::string error_code_field(Step step) {
    return std::string(field_prefix(step)) + "_error_code";
}

std::string error_field(Step step) {
    return std::string(field_prefix(step)) + "_error";
}

const std::vector<std::string>& text_fields() {
    static const std::vector<std::string> f = {status_field(Step::text),
                                               "extracted_text",
                                               "extracted_text_bytes",
                                               "extracted_text_key",
                                               "extraction_method",
                                               "page_count",
                                               "pages_read",
                                               "ocr_pages",
                                               "ocr_confidence",
                                               "ocr_langs",
                                               error_code_field(Step::text),
                                               error_field(Step::text)};
    return f;
}

const std::vector<std::string>& thumbnail_fields() {
    static const std::vector<std::string> f = [] {
        std::vector<std::string> out = {status_field(Step::thumbnails)};
        for (int size : core::k_thumbnail_sizes) out.push_back(core::thumbnail_field(size));
        out.insert(out.end(), {"width", "height", error_code_field(Step::thumbnails), error_field(Step::thumbnails)});
        return out;
    }();
    return f;
}

std::vector<std::string> step_fields(bool text, bool thumbnails) {
    std::vector<std::string> out;
    if (text) out.insert(out.end(), text_fields().begin(), text_fields().end());
    if (thumbnails) out.insert(out.end(), thumbnail_fields().begin(), thumbnail_fields().end());
    return out;
}

} // namespace worker
