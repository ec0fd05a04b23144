#include "extractors/page_threads.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace extractors {

namespace {

class Handout {
public:
    explicit Handout(std::size_t count) : m_count(count) {}

    void work(const std::function<PageReader(bool caller)>& make_reader, bool caller) {
        try {
            const PageReader read = make_reader(caller);
            if (!read) return;
            for (std::size_t k = caller ? 0 : m_next++; k < m_count && !m_stop; k = m_next++) {
                if (!read(k)) m_stop = true;
            }
        } catch (...) {
            std::lock_guard lock(m_mutex);
            if (!m_error) m_error = std::current_exception();
            m_stop = true;
        }
    }

    void rethrow() const {
        if (m_error) std::rethrow_exception(m_error);
    }

private:
    std::size_t m_count;
    std::atomic<std::size_t> m_next{1}; // index 0 is the calling thread's
    std::atomic<bool> m_stop{false};
    std::mutex m_mutex;
    std::exception_ptr m_error;
};

} // namespace

void read_in_threads(std::size_t count, int threads, const std::function<PageReader(bool caller)>& make_reader) {
    if (count == 0) return;
    Handout handout(count);
    const std::size_t wanted = std::size_t(std::clamp(threads, 1, k_max_page_threads));
    const std::size_t others = std::min(wanted, count) - 1;
    std::vector<std::thread> helpers;
    helpers.reserve(others);
    for (std::size_t t = 0; t < others; ++t) {
        helpers.emplace_back([&] { handout.work(make_reader, false); });
    }
    handout.work(make_reader, true);
    for (auto& t : helpers) t.join();
    handout.rethrow();
}

} // namespace extractors
