// Micro-benchmarks of the functions every job runs: the SHA-256 loop over a cached file,
// libmagic content detection, event validation and the metadata fields of a small text
// file. Whole-process ratios against the reference tools are in run.sh; these isolate a
// function when those ratios move.
#include "extractors/sniff/content_type.hpp"
#include "extractors/sniff/hash.hpp"
#include "jobs/event.hpp"
#include "jobs/queue.hpp"
#include "worker/pipeline/pipeline.hpp"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>
#include <sys/mman.h>
#include <unistd.h>

namespace {

// An anonymous in-memory file holding `bytes`: the page cache case without touching disk.
class MemFile {
public:
    explicit MemFile(const std::string& bytes) : m_fd(::memfd_create("bench", MFD_CLOEXEC)) {
        if (m_fd < 0) throw std::runtime_error("memfd_create failed");
        std::size_t done = 0;
        while (done < bytes.size()) {
            ssize_t n = ::write(m_fd, bytes.data() + done, bytes.size() - done);
            if (n <= 0) throw std::runtime_error("write failed");
            done += static_cast<std::size_t>(n);
        }
    }
    ~MemFile() { ::close(m_fd); }
    MemFile(const MemFile&) = delete;
    MemFile& operator=(const MemFile&) = delete;
    int fd() const { return m_fd; }

private:
    int m_fd;
};

std::string pseudo_random_bytes(std::size_t n) {
    std::string s(n, '\0');
    std::uint64_t x = 0x9E3779B97F4A7C15ull;
    for (auto& c : s) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        c = static_cast<char>(x);
    }
    return s;
}

std::string corpus_file(const char* rel) {
    const char* root = std::getenv("CORPUS");
    std::string path = std::string(root ? root : "/work/shared/corpus") + "/" + rel;
    std::ifstream in(path, std::ios::binary);
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return s;
}

void BM_sha256_fd(benchmark::State& state) {
    MemFile file(pseudo_random_bytes(static_cast<std::size_t>(state.range(0))));
    for (auto _ : state) {
        auto h = extractors::sha256_fd(file.fd());
        benchmark::DoNotOptimize(h);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_sha256_fd)->Arg(4 << 10)->Arg(1 << 20)->Arg(64 << 20)->Unit(benchmark::kMicrosecond);

void BM_sha256_hex(benchmark::State& state) {
    const std::string data = pseudo_random_bytes(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) {
        auto h = extractors::sha256_hex(data.data(), data.size());
        benchmark::DoNotOptimize(h);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_sha256_hex)->Arg(64)->Arg(1 << 20);

// libmagic over the first bytes of real files (what detect_content_type(fd) reads).
void BM_detect_content_type_buffer(benchmark::State& state, const char* rel) {
    std::string bytes = corpus_file(rel);
    if (bytes.empty()) {
        state.SkipWithError("corpus file missing");
        return;
    }
    bytes.resize(std::min<std::size_t>(bytes.size(), 1 << 20));
    for (auto _ : state) {
        auto mime = extractors::detect_content_type_buffer(bytes.data(), bytes.size());
        benchmark::DoNotOptimize(mime);
    }
}
BENCHMARK_CAPTURE(BM_detect_content_type_buffer, pdf, "pdf/text/tracemonkey.pdf")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_detect_content_type_buffer, jpeg, "img/jpeg/flower.jpg")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_detect_content_type_buffer, png, "img/png/sample.png")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_detect_content_type_buffer, tiff, "ocr/phototest.tif")->Unit(benchmark::kMicrosecond);

void BM_detect_content_type_text(benchmark::State& state) {
    const std::string text = "tiny 1234\n";
    for (auto _ : state) {
        auto mime = extractors::detect_content_type_buffer(text.data(), text.size());
        benchmark::DoNotOptimize(mime);
    }
}
BENCHMARK(BM_detect_content_type_text)->Unit(benchmark::kMicrosecond);

void BM_detect_content_type_fd(benchmark::State& state) {
    MemFile file(corpus_file("pdf/text/tracemonkey.pdf"));
    for (auto _ : state) {
        auto mime = extractors::detect_content_type(file.fd());
        benchmark::DoNotOptimize(mime);
    }
}
BENCHMARK(BM_detect_content_type_fd)->Unit(benchmark::kMicrosecond);

void BM_parse_event(benchmark::State& state) {
    const std::vector<std::pair<std::string, std::string>> fields = {
        {"file_id", "f1234567890abcdef"},
        {"storage_key", "up/ab/cd/f1234567890abcdef.blob"},
        {"content_type", "application/pdf"},
        {"size", "1048576"},
        {"sha256", std::string(64, 'a')},
        {"name", "report.pdf"},
        {"owner", "user-42"},
        {"steps", "text,thumbnails"},
    };
    for (auto _ : state) {
        auto parsed = jobs::parse_event("1700000000000-0", fields);
        benchmark::DoNotOptimize(parsed);
    }
}
BENCHMARK(BM_parse_event);

// The whole per-job pipeline of a tiny text file (hash, detection, text, fields): the
// queue-overhead run's work minus Redis.
void BM_pipeline_tiny_text(benchmark::State& state) {
    MemFile file("tiny 1234\n");
    worker::JobSpec spec;
    spec.file_id = "tiny1234";
    worker::PipelineOptions options;
    for (auto _ : state) {
        auto r = worker::run_pipeline(file.fd(), 10, spec, options);
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(BM_pipeline_tiny_text)->Unit(benchmark::kMicrosecond);

void BM_file_failure_fields(benchmark::State& state) {
    for (auto _ : state) {
        auto r = worker::file_failure(core::ErrorCode::storage_missing, "The stored file does not exist.");
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(BM_file_failure_fields);

void BM_step_fields(benchmark::State& state) {
    for (auto _ : state) {
        auto v = worker::step_fields(true, true);
        benchmark::DoNotOptimize(v);
    }
}
BENCHMARK(BM_step_fields);

void BM_utc_now_rfc3339(benchmark::State& state) {
    for (auto _ : state) {
        auto s = jobs::utc_now_rfc3339();
        benchmark::DoNotOptimize(s);
    }
}
BENCHMARK(BM_utc_now_rfc3339);

void BM_pipeline_version(benchmark::State& state) {
    for (auto _ : state) {
        auto s = worker::pipeline_version("eng");
        benchmark::DoNotOptimize(s);
    }
}
BENCHMARK(BM_pipeline_version);

} // namespace

BENCHMARK_MAIN();
