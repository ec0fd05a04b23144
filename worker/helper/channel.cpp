#include "worker/helper/channel.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

namespace worker::helper_channel {
namespace {

constexpr std::uint32_t k_magic = 0x48474e49; // "INGH"
constexpr std::size_t k_header = 16;

void put32(char* p, std::uint32_t v) {
    std::memcpy(p, &v, 4);
}
std::uint32_t get32(const char* p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

bool write_all(int sock, const char* data, std::size_t len) {
    while (len > 0) {
        ssize_t n = ::send(sock, data, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        data += n;
        len -= static_cast<std::size_t>(n);
    }
    return true;
}

bool read_all(int sock, char* data, std::size_t len) {
    while (len > 0) {
        ssize_t n = ::read(sock, data, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        len -= static_cast<std::size_t>(n);
    }
    return true;
}

bool valid_header(const char* h, std::uint32_t& type, std::uint32_t& json_len, std::uint32_t& blob_len) {
    type = get32(h + 4);
    json_len = get32(h + 8);
    blob_len = get32(h + 12);
    return get32(h) == k_magic && type >= 1 && type <= 5 && json_len <= k_max_json && blob_len <= k_max_blob;
}

// Moves every descriptor of a received message's SCM_RIGHTS into `out`, in order.
void take_descriptors(msghdr& msg, std::deque<core::Fd>& out) {
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (std::size_t i = 0; i < count; ++i) {
            int got;
            std::memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            out.emplace_back(got);
        }
    }
}

std::optional<nlohmann::json> parse(const std::string& s) {
    auto j = nlohmann::json::parse(s, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return std::nullopt;
    return j;
}

} // namespace

bool send(int sock, Type type, const nlohmann::json& json, const std::string& blob, int fd) {
    const std::string body = json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (body.size() > k_max_json || blob.size() > k_max_blob) return false;
    char header[k_header];
    put32(header, k_magic);
    put32(header + 4, static_cast<std::uint32_t>(type));
    put32(header + 8, static_cast<std::uint32_t>(body.size()));
    put32(header + 12, static_cast<std::uint32_t>(blob.size()));
    if (fd >= 0) {
        // The descriptor rides on the header's bytes.
        iovec iov{header, k_header};
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
        ssize_t n;
        do {
            n = ::sendmsg(sock, &msg, MSG_NOSIGNAL);
        } while (n < 0 && errno == EINTR);
        if (n < 0) return false;
        if (static_cast<std::size_t>(n) < k_header && !write_all(sock, header + n, k_header - n)) return false;
    } else if (!write_all(sock, header, k_header)) {
        return false;
    }
    return write_all(sock, body.data(), body.size()) && write_all(sock, blob.data(), blob.size());
}

std::optional<Message> receive_blocking(int sock) {
    char header[k_header];
    iovec iov{header, k_header};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n;
    do {
        n = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) return std::nullopt;
    Message m;
    std::deque<core::Fd> fds;
    take_descriptors(msg, fds);
    if (!fds.empty()) m.fd = std::move(fds.front()); // the first rides on the message; any other closes here
    // On a bad frame the message, and the descriptor it owns, are dropped.
    if (static_cast<std::size_t>(n) < k_header && !read_all(sock, header + n, k_header - n)) return std::nullopt;
    std::uint32_t type, json_len, blob_len;
    if (!valid_header(header, type, json_len, blob_len)) return std::nullopt;
    std::string body(json_len, '\0');
    m.blob.resize(blob_len);
    if (!read_all(sock, body.data(), json_len) || !read_all(sock, m.blob.data(), blob_len)) return std::nullopt;
    auto j = parse(body);
    if (!j) return std::nullopt;
    m.type = static_cast<Type>(type);
    m.json = std::move(*j);
    return m;
}

Reader::Status Reader::feed(int sock) {
    if (m_broken) return Status::broken;
    char buf[65536];
    for (;;) {
        iovec iov{buf, sizeof buf};
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * k_max_pending_fds)] = {};
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        const ssize_t n = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
        if (n > 0) {
            take_descriptors(msg, m_fds);
            m_buf.append(buf, static_cast<std::size_t>(n));
            if (m_buf.size() > k_header + k_max_json + k_max_blob || m_fds.size() > k_max_pending_fds) {
                m_broken = true;
                return Status::broken;
            }
            continue;
        }
        if (n == 0) return Status::eof;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return Status::more;
        return Status::eof; // ECONNRESET and the like: the helper is gone
    }
}

std::optional<Message> Reader::next() {
    if (m_broken || m_buf.size() < k_header) return std::nullopt;
    std::uint32_t type, json_len, blob_len;
    if (!valid_header(m_buf.data(), type, json_len, blob_len)) {
        m_broken = true;
        return std::nullopt;
    }
    const std::size_t total = k_header + json_len + blob_len;
    if (m_buf.size() < total) return std::nullopt;
    auto j = parse(m_buf.substr(k_header, json_len));
    if (!j) {
        m_broken = true;
        return std::nullopt;
    }
    Message m;
    m.type = static_cast<Type>(type);
    m.json = std::move(*j);
    m.blob = m_buf.substr(k_header + json_len, blob_len);
    m_buf.erase(0, total);
    if ((m.type == Type::partial || m.type == Type::result) && declares_file(m.json) && !m_fds.empty()) {
        m.fd = std::move(m_fds.front());
        m_fds.pop_front();
    }
    return m;
}

nlohmann::json to_json(const JobSpec& spec) {
    nlohmann::json j = {{"file_id", spec.file_id},
                        {"text", spec.step_text},
                        {"thumbnails", spec.step_thumbnails},
                        {"sha256", spec.expected_sha256}};
    if (spec.expected_size) j["size"] = *spec.expected_size;
    return j;
}

JobSpec spec_from_json(const nlohmann::json& j) {
    JobSpec s;
    s.file_id = j.at("file_id").get<std::string>();
    s.step_text = j.at("text").get<bool>();
    s.step_thumbnails = j.at("thumbnails").get<bool>();
    s.expected_sha256 = j.value("sha256", "");
    if (j.contains("size")) s.expected_size = j.at("size").get<std::uint64_t>();
    return s;
}

namespace {

// The wire form of each kind of option value (INGESTD_OPTION_FIELDS names the fields).
template <class T> nlohmann::json wire(const T& v) {
    return v;
}
nlohmann::json wire(core::OcrMode v) {
    return std::string(core::to_string(v));
}

template <class T> void unwire(const nlohmann::json& j, T& out) {
    out = j.get<T>();
}
void unwire(const nlohmann::json& j, core::OcrMode& out) {
    const auto mode = core::parse_ocr_mode(j.get<std::string>());
    if (!mode) throw std::runtime_error("unknown ocr_mode");
    out = *mode;
}

// A failure's detail (the library's words, for the log) is capped: the helper's bytes are
// not trusted to be small.
constexpr std::size_t k_max_detail = 512;

nlohmann::json failure_to_json(const std::optional<core::Failure>& f) {
    if (!f) return nullptr;
    nlohmann::json j = {{"code", std::string(core::to_string(f->code))}, {"message", f->message}};
    if (!f->detail.empty()) j["detail"] = f->detail;
    return j;
}

std::optional<core::Failure> failure_from_json(const nlohmann::json& j) {
    if (j.is_null()) return std::nullopt;
    const auto code = core::parse_error_code(j.at("code").get<std::string>());
    if (!code) throw std::runtime_error("unknown step error code");
    std::string detail = j.value("detail", std::string());
    if (detail.size() > k_max_detail) detail.resize(k_max_detail);
    return core::Failure{*code, j.at("message").get<std::string>(), std::move(detail)};
}

} // namespace

nlohmann::json to_json(const PipelineOptions& o) {
    nlohmann::json j = nlohmann::json::object();
#define INGESTD_OPTION_TO_JSON(type, name, value) j[#name] = wire(o.name);
    INGESTD_OPTION_FIELDS(INGESTD_OPTION_TO_JSON)
#undef INGESTD_OPTION_TO_JSON
    return j;
}

PipelineOptions options_from_json(const nlohmann::json& j, std::chrono::steady_clock::time_point deadline) {
    PipelineOptions o;
#define INGESTD_OPTION_FROM_JSON(type, name, value) unwire(j.at(#name), o.name);
    INGESTD_OPTION_FIELDS(INGESTD_OPTION_FROM_JSON)
#undef INGESTD_OPTION_FROM_JSON
    o.deadline = deadline;
    return o;
}

nlohmann::json to_json(const PipelineResult& r, std::string& blob, int* file) {
    nlohmann::json fields = nlohmann::json::array();
    for (const auto& [k, v] : r.fields) fields.push_back({k, v});
    nlohmann::json outputs = nlohmann::json::array();
    blob.clear();
    if (file != nullptr) *file = -1;
    for (const auto& o : r.outputs) {
        if (o.file) {
            if (file == nullptr || *file >= 0) throw std::invalid_argument("an output held in a file it cannot send");
            *file = o.file->get();
            outputs.push_back({{"key", o.key}, {"size", o.file_size}, {"file", true}});
            continue;
        }
        outputs.push_back({{"key", o.key}, {"size", o.bytes.size()}});
        blob += o.bytes;
    }
    return {{"file_error_code", r.file_error_code ? std::string(core::to_string(*r.file_error_code)) : ""},
            {"file_error", r.file_error},
            {"content_hash", r.content_hash},
            {"fields", fields},
            {"clear", r.clear},
            {"outputs", outputs},
            {"step_failed", r.step_failed},
            {"text_error", failure_to_json(r.text_error)},
            {"thumbnail_error", failure_to_json(r.thumbnail_error)}};
}

bool declares_file(const nlohmann::json& j) {
    const auto outputs = j.find("outputs");
    if (outputs == j.end() || !outputs->is_array()) return false;
    for (const auto& o : *outputs) {
        if (o.is_object() && o.value("file", false) == true) return true;
    }
    return false;
}

PipelineResult result_from_json(const nlohmann::json& j, const std::string& blob, core::Fd file) {
    PipelineResult r;
    try {
        if (const auto code = j.at("file_error_code").get<std::string>(); !code.empty()) {
            r.file_error_code = core::parse_error_code(code);
            if (!r.file_error_code) throw std::runtime_error("unknown file_error_code");
        }
        r.file_error = j.at("file_error").get<std::string>();
        r.content_hash = j.at("content_hash").get<std::string>();
        for (const auto& kv : j.at("fields")) {
            r.fields.emplace_back(kv.at(0).get<std::string>(), kv.at(1).get<std::string>());
        }
        r.clear = j.at("clear").get<std::vector<std::string>>();
        r.step_failed = j.at("step_failed").get<bool>();
        r.text_error = failure_from_json(j.at("text_error"));
        r.thumbnail_error = failure_from_json(j.at("thumbnail_error"));
        std::size_t at = 0;
        for (const auto& o : j.at("outputs")) {
            if (o.value("file", false)) {
                if (!file) throw std::runtime_error("a file output without its descriptor");
                r.outputs.push_back({o.at("key").get<std::string>(),
                                     {},
                                     std::make_shared<core::Fd>(std::move(file)),
                                     o.at("size").get<std::uint64_t>()});
                continue;
            }
            const auto size = o.at("size").get<std::size_t>();
            if (size > blob.size() - at) throw std::runtime_error("outputs larger than the message");
            r.outputs.push_back({o.at("key").get<std::string>(), blob.substr(at, size), nullptr, 0});
            at += size;
        }
        if (at != blob.size()) throw std::runtime_error("unaccounted bytes after the outputs");
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(std::string("malformed result: ") + e.what());
    }
    return r;
}

} // namespace worker::helper_channel
