#pragma once

#include "core/fd.hpp"
#include "worker/pipeline/pipeline.hpp"

#include <chrono>
#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace worker::helper_channel {

/// Kinds of messages on the worker <-> helper socket.
enum class Type : std::uint32_t {
    ready = 1,   // helper -> worker: started, sandboxed, engines loaded; {"pid":..}
    request = 2, // worker -> helper: {"spec":..,"options":..,"remaining_ms":..} + the input fd
    typed = 3,   // helper -> worker: {"content_type":..} once the type is known
    partial = 4, // helper -> worker: one step's result (same body as `result`)
    result = 5,  // helper -> worker: the last step's result; the job is over
};

/// Largest JSON part and largest blob part of one message: a helper that says more is
/// treated as broken.
inline constexpr std::uint64_t k_max_json = 64ULL << 20;
inline constexpr std::uint64_t k_max_blob = 256ULL << 20;

/// One decoded message: a JSON header, raw bytes (outputs, back to back) and the descriptor
/// that came with it (a request's input, a result's spilled text; empty otherwise), owned by
/// the message.
struct Message {
    Type type{};
    nlohmann::json json;
    std::string blob;
    core::Fd fd;
};

/// Writes one message (blocking; MSG_NOSIGNAL), passing `fd` with SCM_RIGHTS when >= 0.
/// Returns false when the peer is gone or the socket fails.
bool send(int sock, Type type, const nlohmann::json& json, const std::string& blob = {}, int fd = -1);

/// Blocking read of one whole message (the helper side). nullopt on EOF or a malformed
/// frame.
std::optional<Message> receive_blocking(int sock);

/// Incremental reader for a non-blocking socket (the worker side, which must never block
/// on a helper): feed() reads what is available; next() pops a complete message. Descriptors
/// that arrive are given, in order, to the results that declare a file output.
class Reader {
public:
    enum class Status { more, eof, broken };
    /// Reads everything available now. `eof` when the peer closed, `broken` on a bad
    /// frame or an oversized message.
    Status feed(int sock);
    /// A complete message, if one has arrived.
    std::optional<Message> next();

private:
    std::string m_buf;
    std::deque<core::Fd> m_fds; // received and not yet given to a message
    bool m_broken = false;
};

/// Largest number of descriptors a helper may have sent ahead of the results that take them.
inline constexpr std::size_t k_max_pending_fds = 4;

/// The JSON form of a job spec, and its inverse (throws nlohmann::json::exception on a
/// missing or mistyped member).
nlohmann::json to_json(const JobSpec& spec);
JobSpec spec_from_json(const nlohmann::json& j);

/// The JSON form of the options: every row of INGESTD_OPTION_FIELDS by name (the deadline
/// travels apart, as the time remaining).
nlohmann::json to_json(const PipelineOptions& options);
/// The inverse, with `deadline` as the options' deadline; throws std::runtime_error for an
/// unknown OCR mode and nlohmann::json::exception for a missing or mistyped row.
PipelineOptions options_from_json(const nlohmann::json& j, std::chrono::steady_clock::time_point deadline);

/// A result as a JSON header plus its in-memory outputs back to back in `blob`; an output
/// held in a file is {"file":true} and its descriptor goes in `*file` (-1 when none; at most
/// one such output a result, and only when `file` is given: throws std::invalid_argument
/// otherwise); the typed step failures travel as {"code","message"} or null.
nlohmann::json to_json(const PipelineResult& result, std::string& blob, int* file = nullptr);
/// The inverse, with the descriptor that came with the message for its file output; throws
/// std::runtime_error when sizes or types do not add up, a file output has no descriptor, or
/// an error code is not one of the spec's.
PipelineResult result_from_json(const nlohmann::json& j, const std::string& blob, core::Fd file = {});

/// True when a result's JSON declares an output held in a file (it then takes a descriptor).
bool declares_file(const nlohmann::json& j);

} // namespace worker::helper_channel
