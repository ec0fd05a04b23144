#include "tests/support/tls_files.hpp"

#include "tests/support/redis_server.hpp"

#include <fstream>
#include <stdexcept>

namespace testsupport {
namespace {

void openssl(const std::string& args) {
    int status = -1;
    run_command("openssl " + args + " 2>&1", &status);
    if (status != 0) throw std::runtime_error("openssl " + args + " failed");
}

} // namespace

TestCa::TestCa() {
    const std::string d = m_dir.path().string();
    openssl("req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=ingestd-test-ca -keyout " + d + "/ca.key -out " + d +
            "/ca.pem");
    openssl("req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other-ca -keyout " + d + "/other-ca.key -out " + d +
            "/other-ca.pem");
    issue("server", "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1");
    issue("client", "/CN=ingestd-client", "extendedKeyUsage=clientAuth");
}

// `name`.pem and `name`.key, signed by the CA.
void TestCa::issue(const std::string& name, const std::string& subject, const std::string& ext) const {
    const std::string base = (m_dir.path() / name).string();
    openssl("req -newkey rsa:2048 -nodes -subj " + subject + " -keyout " + base + ".key -out " + base + ".csr");
    std::ofstream(base + ".ext") << ext << "\n";
    const std::string d = m_dir.path().string();
    openssl("x509 -req -in " + base + ".csr -CA " + d + "/ca.pem -CAkey " + d + "/ca.key -CAcreateserial -days 2 " +
            "-extfile " + base + ".ext -out " + base + ".pem");
}

std::vector<std::string> TestCa::redis_args(int tls_port, bool require_client) const {
    const std::string d = m_dir.path().string();
    return {"--tls-port",         std::to_string(tls_port),
            "--tls-cert-file",    d + "/server.pem",
            "--tls-key-file",     d + "/server.key",
            "--tls-ca-cert-file", d + "/ca.pem",
            "--tls-auth-clients", require_client ? "yes" : "no"};
}

} // namespace testsupport
