#include "tests/support/http_client.hpp"

#include <algorithm>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace testsupport {

namespace {

HttpResponse parse(const std::string& all) {
    HttpResponse r;
    auto head_end = all.find("\r\n\r\n");
    if (all.rfind("HTTP/", 0) != 0 || head_end == std::string::npos) return r;
    r.status = std::atoi(all.c_str() + all.find(' ') + 1);
    std::size_t pos = all.find("\r\n") + 2;
    while (pos < head_end) {
        auto eol = all.find("\r\n", pos);
        std::string line = all.substr(pos, eol - pos);
        auto colon = line.find(':');
        if (colon != std::string::npos) {
            std::string name = line.substr(0, colon);
            std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
            std::string value = line.substr(colon + 1);
            value.erase(0, value.find_first_not_of(' '));
            r.headers[name] = value;
        }
        pos = eol + 2;
    }
    r.body = all.substr(head_end + 4);
    return r;
}

} // namespace

HttpResponse http_raw(int port, const std::string& raw, int timeout_s) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{timeout_s, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::string all;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        ::send(fd, raw.data(), raw.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(raw.size())) {
        char buf[65536];
        for (;;) {
            ssize_t n = ::recv(fd, buf, sizeof buf, 0);
            if (n <= 0) break;
            all.append(buf, static_cast<std::size_t>(n));
        }
    }
    ::close(fd);
    return parse(all);
}

HttpResponse http_request(int port, const std::string& method, const std::string& path,
                          const std::string& extra_headers) {
    return http_raw(port, method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
                              extra_headers + "\r\n");
}

} // namespace testsupport
