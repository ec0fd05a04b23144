// The page handout shared by a PDF's and a TIFF's OCR (extractors/page_threads.hpp).
#include "extractors/page_threads.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

using extractors::PageReader;
using extractors::read_in_threads;

namespace {

// Who read which index, from several threads.
struct Record {
    std::mutex mu;
    std::vector<int> reads; // times each index was read
    std::set<std::thread::id> threads;
    std::thread::id first_reader;

    explicit Record(std::size_t count) : reads(count, 0) {}

    void read(std::size_t k) {
        std::lock_guard lock(mu);
        ++reads.at(k);
        threads.insert(std::this_thread::get_id());
        if (k == 0) first_reader = std::this_thread::get_id();
    }
};

} // namespace

TEST(PageThreads, EveryIndexIsReadOnceAndTheCallerReadsTheFirst) {
    for (int threads : {1, 2, 3, 4, 9}) {
        Record record(12);
        std::atomic<int> made{0};
        read_in_threads(12, threads, [&](bool) -> PageReader {
            ++made;
            return [&](std::size_t k) {
                record.read(k);
                return true;
            };
        });
        EXPECT_EQ(record.reads, std::vector<int>(12, 1)) << threads << " threads";
        EXPECT_EQ(record.first_reader, std::this_thread::get_id());
        EXPECT_EQ(made, std::min(threads, extractors::k_max_page_threads)) << "one reader a thread";
    }
}

TEST(PageThreads, NoMoreThreadsThanPagesAndNoneForNoPage) {
    std::atomic<int> made{0};
    const auto count_readers = [&](bool) -> PageReader {
        ++made;
        return [](std::size_t) { return true; };
    };
    read_in_threads(2, 4, count_readers);
    EXPECT_EQ(made, 2);
    made = 0;
    read_in_threads(0, 4, count_readers);
    EXPECT_EQ(made, 0);
}

TEST(PageThreads, AReaderThatSaysStopEndsTheHandout) {
    Record record(100);
    read_in_threads(100, 1, [&](bool) -> PageReader {
        return [&](std::size_t k) {
            record.read(k);
            return k < 4; // page 4 failed: nothing after it is handed out
        };
    });
    for (std::size_t k = 0; k < 100; ++k) EXPECT_EQ(record.reads[k], k <= 4 ? 1 : 0) << k;
}

TEST(PageThreads, TheFirstExceptionIsRethrownOnceAllThreadsEnded) {
    std::atomic<int> running{0};
    EXPECT_THROW(read_in_threads(50, 3,
                                 [&](bool) -> PageReader {
                                     return [&](std::size_t k) {
                                         ++running;
                                         if (k == 7) {
                                             --running;
                                             throw std::runtime_error("page 8 is damaged");
                                         }
                                         --running;
                                         return true;
                                     };
                                 }),
                 std::runtime_error);
    EXPECT_EQ(running, 0) << "every thread had ended";
}

TEST(PageThreads, AThreadWithoutAReaderLeavesThePagesToTheOthers) {
    Record record(10);
    read_in_threads(10, 3, [&](bool caller) -> PageReader {
        if (!caller) return {}; // it could not open its own document
        return [&](std::size_t k) {
            record.read(k);
            return true;
        };
    });
    EXPECT_EQ(record.reads, std::vector<int>(10, 1));
    EXPECT_EQ(record.threads.size(), 1U);
}

namespace {

// Lends what the test says its idle slots leave, and counts.
struct CountingLender final : extractors::ThreadLender {
    std::atomic<int> spare{0};
    std::atomic<int> lent{0};
    std::atomic<int> borrows{0};
    std::atomic<int> returns{0};

    bool borrow() override {
        int l = lent;
        if (l >= spare || !lent.compare_exchange_strong(l, l + 1)) return false;
        ++borrows;
        return true;
    }
    void give_back() override {
        --lent;
        ++returns;
    }
    bool over_lent() override { return lent > spare; }
};

// Installs a lender for one test.
struct LenderScope {
    explicit LenderScope(extractors::ThreadLender* lender) { extractors::set_thread_lender(lender); }
    ~LenderScope() { extractors::set_thread_lender(nullptr); }
};

} // namespace

TEST(PageThreads, ABorrowedThreadJoinsWhileASlotIsIdleAndLeavesWhenItIsNeeded) {
    CountingLender lender;
    const LenderScope scope(&lender);
    Record record(8);
    std::mutex mu;
    std::condition_variable cv;
    int borrowed_reads = 0;
    read_in_threads(8, 1, [&](bool caller) -> PageReader {
        return [&, caller](std::size_t k) {
            record.read(k);
            if (caller && k == 0) lender.spare = 1; // a slot fell idle while page 1 was read
            if (!caller) {
                lender.spare = 0; // ... and is taken again while the borrowed thread reads its page
                std::lock_guard lock(mu);
                ++borrowed_reads;
                cv.notify_all();
            }
            if (caller && k > 0) { // the caller waits for the borrowed thread's page
                std::unique_lock lock(mu);
                cv.wait_for(lock, std::chrono::seconds(30), [&] { return borrowed_reads > 0; });
            }
            return true;
        };
    });
    EXPECT_EQ(record.reads, std::vector<int>(8, 1));
    EXPECT_EQ(record.threads.size(), 2u) << "no thread was borrowed";
    EXPECT_EQ(borrowed_reads, 1) << "the borrowed thread read on while over-lent";
    EXPECT_EQ(lender.borrows, 1);
    EXPECT_EQ(lender.returns, 1);
    EXPECT_EQ(lender.lent, 0);
}

TEST(PageThreads, NothingIsBorrowedForAPageThatTheThreadsGivenWillRead) {
    CountingLender lender;
    lender.spare = 4;
    const LenderScope scope(&lender);
    std::atomic<int> made{0};
    const auto count_readers = [&](bool) -> PageReader {
        ++made;
        return [](std::size_t) { return true; };
    };
    read_in_threads(1, 1, count_readers); // one page, one thread
    read_in_threads(2, 2, count_readers); // two pages, two threads
    EXPECT_EQ(made, 3);
    EXPECT_EQ(lender.borrows, 0);
    read_in_threads(40, 1, count_readers); // many pages: up to k_max_page_threads in all
    EXPECT_LE(lender.borrows, extractors::k_max_page_threads - 1);
    EXPECT_GE(lender.borrows, 1);
    EXPECT_EQ(lender.returns, lender.borrows);
    EXPECT_EQ(lender.lent, 0);
}
