#include "worker/daemon/lanes.hpp"

#include "extractors/sniff/ocr_time.hpp"
#include "jobs/event.hpp"

namespace worker {

bool fast_lane_entry(const Store& store, const Config& config, const jobs::Delivery& delivery) {
    try {
        const jobs::ParsedEntry parsed = jobs::parse_event(delivery.entry_id, delivery.fields);
        if (parsed.verdict != jobs::ParsedEntry::Verdict::ok || parsed.event.is_delete) return true;
        const jobs::Event& ev = parsed.event;
        const bool ocr_asked = ev.step_text && config.ocr_mode != "off";
        const Store::Peek peek = store.peek(ev.storage_key, ocr_asked ? extractors::k_ocr_time_head : 0);
        if (peek.size > k_fast_lane_max_bytes) return false;
        return !ocr_asked || !extractors::may_take_ocr_time(peek.head, peek.size);
    } catch (const core::FileError& e) {
        return !e.transient(); // missing, refused, not a regular file: the job fails at once
    } catch (const std::exception&) {
        return false;
    }
}

} // namespace worker
