#pragma once

// Starting a worker with its HTTP endpoint, for the tests of the endpoint.
#include "tests/support/http_client.hpp"
#include "tests/support/worker_fixture.hpp"

#include <map>
#include <string>

#include <gtest/gtest.h>

namespace testsupport {

/// Starts worker `name` of `fx` with its endpoint on `port` (OCR off unless `extra` says
/// otherwise) and waits until /readyz answers 200; a failed wait fails the test.
inline void start_http_worker(WorkerFixture& fx, const std::string& name, int port,
                              std::map<std::string, std::string> extra = {}) {
    extra.emplace("INGEST_OCR_MODE", "off");
    extra["INGEST_HTTP_ADDR"] = "127.0.0.1:" + std::to_string(port);
    fx.start(name, extra);
    ASSERT_TRUE(eventually(std::chrono::seconds(30), [&] { return http_get(port, "/readyz").status == 200; }))
        << fx.log_of(name);
}

} // namespace testsupport
