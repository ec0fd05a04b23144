// The OCR threads a worker's idle slots lend its helpers (worker/helper/thread_share.hpp): one
// file mapped by the worker and each helper, here by three mappings in one process.
#include "tests/support/corpus.hpp"
#include "worker/helper/thread_share.hpp"

#include <gtest/gtest.h>

namespace {

TEST(ThreadShare, LendsWhatIdleSlotsLeaveAndTakesBackAStoppedHelpersThreads) {
    testsupport::TempDir dir;
    const auto path = dir.path() / "threads.share";
    worker::ThreadShare worker_side(path, true);
    worker::ThreadShare helper0(path, false);
    worker::ThreadShare helper1(path, false);
    EXPECT_FALSE(helper0.borrow(0)) << "nothing is idle yet";
    worker_side.set_spare(2);
    EXPECT_TRUE(helper0.borrow(0));
    EXPECT_TRUE(helper1.borrow(1));
    EXPECT_FALSE(helper0.borrow(0)) << "lent past what the idle slots leave";
    EXPECT_FALSE(helper1.over_lent());
    worker_side.set_spare(1); // a job took an idle slot
    EXPECT_TRUE(helper0.over_lent());
    helper1.give_back(1);
    EXPECT_FALSE(helper0.over_lent());
    EXPECT_EQ(worker_side.lent(), 1);
    worker_side.forget(0); // helper 0 died holding its thread
    EXPECT_EQ(worker_side.lent(), 0);
    EXPECT_TRUE(helper1.borrow(1));
    EXPECT_FALSE(helper1.borrow(worker::k_share_slots)) << "a slot past the table borrows nothing";
    EXPECT_THROW(worker::ThreadShare(dir.path() / "absent", false), std::system_error);
}

} // namespace
