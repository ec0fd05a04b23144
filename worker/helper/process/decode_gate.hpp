#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>

namespace worker {

/// Files whose decode holds more than this at once (extractors::whole_image_bytes: a
/// progressive JPEG above ~11 MP at 4:4:4, ~22 MP at 4:2:0) are decoded by one helper of a
/// worker at a time: two 24 MP ones at once would hold 2 x 162 MB of coefficients on top of
/// the other helpers, where one at a time keeps the worker within a few hundred MiB.
inline constexpr std::uint64_t k_large_decode_bytes = 64ULL << 20;

/// Opens the worker's gate file (HelperSettings::decode_lock), before the sandbox: an open
/// file description of this helper's own, locked with flock(2), which the kernel releases
/// when the helper dies. An empty path (`ingestd process`, a lone helper) leaves no gate.
/// Returns false when the file cannot be opened (the helper then runs without the gate).
bool open_decode_gate(const std::filesystem::path& path);

/// While alive, holds the gate when `need_bytes` is above k_large_decode_bytes (waiting
/// for another helper's large decode to end); nothing otherwise, or without a gate.
class LargeDecodeHold {
public:
    explicit LargeDecodeHold(std::uint64_t need_bytes);
    ~LargeDecodeHold();
    LargeDecodeHold(const LargeDecodeHold&) = delete;
    LargeDecodeHold& operator=(const LargeDecodeHold&) = delete;

    /// How long it waited for another helper's large decode.
    std::chrono::milliseconds waited() const { return m_waited; }

private:
    bool m_held = false;
    std::chrono::milliseconds m_waited{0};
};

} // namespace worker
