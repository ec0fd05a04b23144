#include "worker/helper/exchange.hpp"

#include "core/file_error.hpp"
#include "worker/helper/channel.hpp"
#include "worker/helper/helper_result.hpp"
#include "worker/helper/proc_status.hpp"
#include "worker/helper/text_output.hpp"

#include <algorithm>

#include <poll.h>
#include <signal.h>

namespace worker {
namespace {

using Clock = std::chrono::steady_clock;
namespace ch = helper_channel;

// Adopts one message into `ex`; sets `invalid` for anything a helper must not say.
void take(Exchange& ex, ch::Message& m, const HelperJob& job) {
    if (m.type == ch::Type::typed) {
        ex.content_type = m.json.value("content_type", "");
        ex.invalid = validate_content_type(ex.content_type);
        return;
    }
    if (m.type != ch::Type::partial && m.type != ch::Type::result) {
        ex.invalid = "an unexpected message";
        return;
    }
    try {
        PipelineResult r = ch::result_from_json(m.json, m.blob, std::move(m.fd));
        if (auto why = adopt_output_files(r); !why.empty()) {
            ex.invalid = why;
        } else if (auto why = validate_result(r, job.spec, job.hash, job.size, job.options); !why.empty()) {
            ex.invalid = why;
        } else {
            ex.parts.push_back(std::move(r));
            ex.finished = m.type == ch::Type::result;
        }
    } catch (const core::FileError&) {
        throw; // the worker's own spool failed: not the helper's fault
    } catch (const std::exception& e) {
        ex.invalid = e.what();
    }
}

// Takes every complete message read so far; false once the exchange is over.
bool take_all(Exchange& ex, ch::Reader& reader, const HelperJob& job) {
    while (auto m = reader.next()) {
        take(ex, *m, job);
        if (ex.finished || !ex.invalid.empty()) return false;
    }
    return true;
}

} // namespace

Exchange exchange_messages(pid_t pid, int sock, Clock::time_point hard, const HelperJob& job) {
    Exchange ex;
    ch::Reader reader;
    for (;;) {
        const auto t = Clock::now();
        if (t >= hard) {
            ::kill(pid, SIGKILL);
            ex.killed_for_time = true;
            return ex;
        }
        // Short polls: the helper's memory is sampled while it works, for the death's cause.
        const auto wait =
            std::min<long long>(100, std::chrono::duration_cast<std::chrono::milliseconds>(hard - t).count() + 1);
        pollfd p{sock, POLLIN, 0};
        const int n = ::poll(&p, 1, static_cast<int>(wait));
        ex.peak_data = std::max(ex.peak_data, proc_status_bytes(pid, "VmData:"));
        if (n <= 0) continue;
        const auto st = reader.feed(sock);
        if (!take_all(ex, reader, job)) return ex;
        if (st == ch::Reader::Status::broken) {
            ex.invalid = "a malformed message";
            return ex;
        }
        if (st == ch::Reader::Status::eof) return ex; // it died: the caller finds out how
    }
}

} // namespace worker
