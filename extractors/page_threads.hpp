// The pages of one document read by several threads (a long scan on an idle worker): each
// page goes, in order, to whichever thread asks first, so that a slow page never holds the
// others back; the callers put the results back in page order.
#pragma once

#include <cstddef>
#include <functional>

namespace extractors {

/// The most threads that read one document's pages (each holds a Tesseract engine, 50-65 MB a
/// language, and a decoded page).
inline constexpr int k_max_page_threads = 4;

/// One thread's reader: reads page index `k`; false when no later page should be read (its
/// page failed or ran out of time).
using PageReader = std::function<bool(std::size_t k)>;

/// Threads lent by the job slots of a worker that are idle now (worker/helper/thread_share):
/// a document's reading borrows one for another thread while pages are left, and a borrowed
/// thread gives it back after its page once the worker needs it again (over_lent).
class ThreadLender {
public:
    virtual ~ThreadLender() = default;
    /// One thread more for this process: true when an idle slot's share was free (now lent).
    virtual bool borrow() = 0;
    /// Gives back one thread borrowed before.
    virtual void give_back() = 0;
    /// More threads are lent than the idle slots leave: a borrowed thread should stop.
    virtual bool over_lent() = 0;
};

/// The lender of this process (the helper's, from its worker), or nullptr: a document is then
/// read by the threads it was given alone. Set once, before any reading.
void set_thread_lender(ThreadLender* lender);
ThreadLender* thread_lender();

/// Reads the indexes [0, count) on up to `threads` threads (at most k_max_page_threads, at
/// most one a page), this thread among them: it takes index 0 first, then every index goes,
/// in ascending order, to whichever thread asks first. `make_reader(caller)` makes each
/// thread's reader on that thread (`caller` for this one); an empty reader reads nothing.
/// Once a reader returns false or throws, no further index is handed out; the first
/// exception is rethrown once every thread has ended. With a thread_lender(), this thread
/// also borrows threads (up to k_max_page_threads in all) before each index it takes while
/// more indexes are left than threads read them; a borrowed thread stops after an index
/// once the lender is over-lent, and gives its thread back.
void read_in_threads(std::size_t count, int threads, const std::function<PageReader(bool caller)>& make_reader);

} // namespace extractors
