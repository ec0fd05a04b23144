#include "worker/helper/process/share_lender.hpp"

#include "extractors/page_threads.hpp"
#include "worker/helper/thread_share.hpp"

#include <memory>
#include <system_error>

namespace worker {
namespace {

class ShareLender final : public extractors::ThreadLender {
public:
    ShareLender(const std::filesystem::path& share, int slot) : m_share(share, false), m_slot(slot) {}
    bool borrow() override { return m_share.borrow(m_slot); }
    void give_back() override { m_share.give_back(m_slot); }
    bool over_lent() override { return m_share.over_lent(); }

private:
    ThreadShare m_share;
    int m_slot;
};

} // namespace

bool lend_threads_from(const std::filesystem::path& share, int slot) {
    if (share.empty() || slot < 0) return true;
    try {
        static std::unique_ptr<ShareLender> lender; // for the helper's whole life
        lender = std::make_unique<ShareLender>(share, slot);
        extractors::set_thread_lender(lender.get());
        return true;
    } catch (const std::system_error&) {
        return false;
    }
}

} // namespace worker
