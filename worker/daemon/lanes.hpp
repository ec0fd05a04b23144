// Two lanes through one worker: INGEST_CONCURRENCY job threads take the events in order,
// and one more thread, the fast lane, takes only events that cannot spend long (a small
// image, a text, a document, a delete, an event that fails at once), looking past the long
// ones (scans, photos) that the others work through. So a screenshot uploaded behind a
// colleague's 200-page scan is done in a second, and the scans lose no thread to it.
#pragma once

#include "jobs/queue.hpp"
#include "worker/config/config.hpp"
#include "worker/storage/store.hpp"

#include <cstdint>

namespace worker {

/// Files above this size never take the fast lane (hashing them alone takes a while).
inline constexpr std::uint64_t k_fast_lane_max_bytes = 8u << 20;

/// Whether the fast lane may take `delivery`: an entry that fails or is dead-lettered at
/// once, a delete, or a file of at most k_fast_lane_max_bytes whose first bytes say it
/// cannot spend long in OCR (extractors::may_take_ocr_time), or whose OCR is not asked for.
/// A file whose first bytes cannot be read yet goes to the ordinary lane (its job retries).
/// Never throws.
bool fast_lane_entry(const Store& store, const Config& config, const jobs::Delivery& delivery);

} // namespace worker
