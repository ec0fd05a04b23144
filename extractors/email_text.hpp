#pragma once

#include "extractors/step.hpp"

#include <span>

namespace extractors {

/// An e-mail (`message/rfc822`) or an mbox of them, parsed with GMime: per message its
/// From, To, Cc, Date and Subject lines (RFC 2047 words decoded), a blank line, the first
/// text/plain body converted from its charset (or the visible text of the first HTML body
/// when there is none), then one "Attachment: NAME" line per attachment; never the
/// attachments' bytes. Messages of an mbox are separated by form feeds. Method `document`.
/// Bytes GMime finds no message in are corrupt_file. Thread-safe.
TextResult extract_email_text(std::span<const unsigned char> bytes, bool mbox, const TextOptions& options);

} // namespace extractors
