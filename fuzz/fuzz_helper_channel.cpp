// What a compromised helper could send the worker: frames, result JSON and outputs.
#include "worker/helper/channel.hpp"
#include "worker/helper/helper_result.hpp"

#include <cstdint>
#include <string>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0) return 0;
    if (size > 0 && ::write(sv[0], data, size) < 0) size = 0;
    ::close(sv[0]);
    worker::helper_channel::Reader reader;
    reader.feed(sv[1]);
    ::close(sv[1]);
    worker::JobSpec spec;
    spec.file_id = "f1";
    while (auto m = reader.next()) {
        try {
            auto r = worker::helper_channel::result_from_json(m->json, m->blob);
            if (worker::validate_result(r, spec, "h", 1, worker::PipelineOptions{}).empty()) {
                worker::combine_results({r}, spec, "h", 1, "", core::Failure{core::ErrorCode::crashed, "x"});
            }
        } catch (const std::exception&) {
        }
    }
    return 0;
}
