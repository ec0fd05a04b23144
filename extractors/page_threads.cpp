#include "extractors/page_threads.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace extractors {

namespace {

ThreadLender* g_lender = nullptr;

class Handout {
public:
    explicit Handout(std::size_t count) : m_count(count) {}

    // One thread's reading: the caller (index 0 first, and `between` before each index it
    // takes), a thread it was given, or a borrowed one (which stops once the lender is over-lent).
    void work(const std::function<PageReader(bool caller)>& make_reader, bool caller,
              const std::function<void()>& between = {}, ThreadLender* borrowed_from = nullptr) {
        try {
            const PageReader read = make_reader(caller);
            if (!read) return;
            for (std::size_t k = caller ? 0 : m_next++; k < m_count && !m_stop; k = m_next++) {
                if (!read(k)) m_stop = true;
                if (between) between();
                if (borrowed_from != nullptr && borrowed_from->over_lent()) break;
            }
        } catch (...) {
            std::lock_guard lock(m_mutex);
            if (!m_error) m_error = std::current_exception();
            m_stop = true;
        }
    }

    // Indexes not yet handed out.
    std::size_t left() const {
        const std::size_t next = m_next;
        return m_stop || next >= m_count ? 0 : m_count - next;
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

void set_thread_lender(ThreadLender* lender) {
    g_lender = lender;
}

ThreadLender* thread_lender() {
    return g_lender;
}

void read_in_threads(std::size_t count, int threads, const std::function<PageReader(bool caller)>& make_reader) {
    if (count == 0) return;
    Handout handout(count);
    const std::size_t wanted = std::size_t(std::clamp(threads, 1, k_max_page_threads));
    const std::size_t others = std::min(wanted, count) - 1;
    std::vector<std::thread> helpers;
    helpers.reserve(2 * std::size_t(k_max_page_threads));
    for (std::size_t t = 0; t < others; ++t) {
        helpers.emplace_back([&] { handout.work(make_reader, false); });
    }
    ThreadLender* lender = g_lender;
    std::atomic<std::size_t> borrowed{0}; // borrowed threads still reading
    // Borrows a thread for every index left beyond those the reading threads take next.
    auto borrow = [&] {
        while (lender != nullptr && helpers.size() < 2 * std::size_t(k_max_page_threads) &&
               others + 1 + borrowed < std::size_t(k_max_page_threads) && handout.left() > others + 1 + borrowed &&
               lender->borrow()) {
            ++borrowed;
            try {
                helpers.emplace_back([&] {
                    handout.work(make_reader, false, {}, lender);
                    --borrowed;
                    lender->give_back();
                });
            } catch (const std::system_error&) { // no thread to be had: read on without it
                --borrowed;
                lender->give_back();
                return;
            }
        }
    };
    borrow();
    handout.work(make_reader, true, borrow);
    for (auto& t : helpers) t.join();
    handout.rethrow();
}

} // namespace extractors
