#pragma once

#include <string>

namespace thumbnails {

/// Initialises libvips for a long-running process: once, loaders outside our list blocked,
/// small operation cache, bounded inner concurrency, library warnings silenced. Throws
/// std::runtime_error when libvips cannot start. Thread-safe; later calls do nothing.
void init();

/// Runs every image loader we allow, the WebP encoder and the PDF renderer once on tiny
/// images made here, so that the first real file of a long-lived helper does not pay for
/// loader, codec and font set-up (about 50-100 ms in all). Never throws.
void warm_up();

/// A valid one-page PDF (200 x 100 pt) with one line of text in a standard font (for
/// warm-ups and tests).
std::string tiny_pdf();

/// Call on a thread that used libvips before it exits.
void thread_shutdown();

} // namespace thumbnails
