#include "worker/http/server.hpp"

#include "jobs/queue.hpp"
#include "jobs/redis.hpp"
#include "worker/config/log.hpp"
#include "worker/http/dashboard.hpp"
#include "worker/http/metrics.hpp"
#include "worker/storage/store.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

namespace worker {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr int k_recent_files = 30;  // rows of /v1/recent
constexpr int k_recent_scan = 300;  // results-stream entries read to find them
constexpr int k_stats_minutes = 15; // minutes of /v1/stats

std::string dump(const nlohmann::ordered_json& j) {
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace

struct HttpServer::Impl : std::enable_shared_from_this<HttpServer::Impl> {
    Impl(asio::io_context& io, const Config& c, Metrics& m, const std::atomic<bool>& d)
        : io(io), config(c), metrics(m), draining(d), acceptor(io),
          redis(jobs::parse_redis_url(c.redis_url), std::chrono::milliseconds(1000)), names(queue_names(c)) {
        queue.emplace(names);
    }

    asio::io_context& io;
    const Config& config;
    Metrics& metrics;
    const std::atomic<bool>& draining;
    tcp::acceptor acceptor;
    jobs::Redis redis;
    jobs::QueueNames names;
    std::optional<jobs::Queue> queue;

    void start() {
        const std::string& addr = config.http_addr;
        auto colon = addr.rfind(':');
        std::string host = addr.substr(0, colon);
        if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
        auto port = static_cast<unsigned short>(std::stoi(addr.substr(colon + 1)));
        tcp::endpoint ep(asio::ip::make_address(host), port);
        acceptor.open(ep.protocol());
        acceptor.set_option(asio::socket_base::reuse_address(true));
        acceptor.bind(ep);
        acceptor.listen();
        accept();
    }

    void accept() {
        auto self = shared_from_this();
        acceptor.async_accept([self](beast::error_code ec, tcp::socket socket) {
            if (ec == asio::error::operation_aborted) return;
            if (!ec) {
                std::make_shared<Session>(self, std::move(socket))->run();
            }
            self->accept();
        });
    }

    bool ready() {
        if (draining || !metrics.redis_up) return false;
        return true;
    }

    /// Reads the group's pending and lag and the dead-letter count from Redis now (the
    /// lease keeper samples them only every third of the claim timeout). Keeps the last
    /// values when Redis does not answer.
    void refresh_queue_gauges() {
        try {
            auto [pending, lag] = queue->pending_and_lag(redis);
            metrics.stream_pending = pending;
            metrics.stream_lag = lag;
            jobs::Reply dead = redis.command({"XLEN", names.dead_stream()});
            if (dead.type == jobs::Reply::Type::integer) metrics.dead_letters = dead.integer;
        } catch (const std::exception&) {
        }
    }

    std::string stats_json() {
        refresh_queue_gauges();
        nlohmann::ordered_json j = nlohmann::ordered_json::object();
        j["worker"] = config.consumer;
        j["ready"] = ready();
        j["draining"] = draining.load();
        j["redis_up"] = metrics.redis_up.load();
        j["concurrency"] = config.concurrency;
        j["in_flight"] = metrics.in_flight.load();
        j["stream_lag"] = metrics.stream_lag.load();
        j["stream_pending"] = metrics.stream_pending.load();
        j["dead_letters"] = metrics.dead_letters.load();
        j["minutes"] = nlohmann::ordered_json::array();
        for (const auto& m : metrics.recent_minutes(k_stats_minutes)) {
            j["minutes"].push_back({{"start", m.start_unix}, {"done", m.done}, {"failed", m.failed}});
        }
        return dump(j);
    }

    /// The files whose status changed last, newest first, one row each, with the metadata
    /// fields the dashboard shows. Throws when Redis does not answer.
    std::string recent_json() {
        jobs::Reply r =
            redis.command({"XREVRANGE", names.results_stream(), "+", "-", "COUNT", std::to_string(k_recent_scan)});
        if (r.is_error()) throw jobs::RedisIoError(r.str);
        std::vector<std::string> ids;
        std::set<std::string> seen;
        for (const auto& e : r.elements) {
            if (e.elements.size() < 2) continue;
            for (auto& [k, v] : e.elements[1].as_pairs()) {
                if (k == "file_id" && jobs::valid_file_id(v) && seen.insert(v).second) ids.push_back(v);
            }
            if (ids.size() >= static_cast<std::size_t>(k_recent_files)) break;
        }
        static const std::vector<std::string> fields = {"status",      "name",       "content_type", "size_bytes",
                                                        "finished_at", "error_code", "error",        "thumbnail_72_key",
                                                        "event_id"};
        std::vector<std::vector<std::string>> commands;
        for (const auto& id : ids) {
            std::vector<std::string> c = {"HMGET", names.metadata_key(id)};
            c.insert(c.end(), fields.begin(), fields.end());
            commands.push_back(std::move(c));
        }
        auto replies = redis.pipeline(commands);
        nlohmann::ordered_json rows = nlohmann::ordered_json::array();
        for (std::size_t i = 0; i < ids.size() && i < replies.size(); ++i) {
            const jobs::Reply& reply = replies[i];
            if (reply.elements.size() != fields.size()) continue;
            nlohmann::ordered_json row = nlohmann::ordered_json::object();
            row["file_id"] = ids[i];
            for (std::size_t f = 0; f < fields.size(); ++f) {
                if (reply.elements[f].type != jobs::Reply::Type::string) continue;
                if (fields[f] == "thumbnail_72_key") {
                    row["thumbnail"] = "/v1/files/" + ids[i] + "/thumbnail/72";
                } else {
                    row[fields[f]] = reply.elements[f].str;
                }
            }
            if (!row.contains("status")) continue; // metadata expired or deleted
            rows.push_back(std::move(row));
        }
        return dump(rows);
    }

    struct Session : std::enable_shared_from_this<Session> {
        Session(std::shared_ptr<Impl> s, tcp::socket sock) : server(std::move(s)), stream(std::move(sock)) {}
        std::shared_ptr<Impl> server;
        beast::tcp_stream stream;
        beast::flat_buffer buffer{16384};
        std::optional<http::request_parser<http::empty_body>> parser;
        http::response<http::string_body> res;

        void run() {
            parser.emplace();
            parser->header_limit(16384);
            stream.expires_after(std::chrono::seconds(10));
            http::async_read(stream, buffer, *parser,
                             [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
        }

        void on_read(beast::error_code ec) {
            if (ec == http::error::end_of_stream) return close();
            if (ec) {
                if (ec == asio::error::operation_aborted || ec == beast::error::timeout) return close();
                res = {};
                res.version(11);
                reply(http::status::bad_request, "text/plain", "malformed request\n");
                res.keep_alive(false);
                return write();
            }
            auto& req = parser->get();
            res = {};
            res.version(req.version());
            res.keep_alive(req.keep_alive());
            handle(req);
            if (req.method() == http::verb::head) {
                auto len = res.body().size();
                res.body().clear();
                res.content_length(len);
            }
            write();
        }

        void write() {
            if (!res.has_content_length()) res.prepare_payload();
            http::async_write(stream, res, [self = shared_from_this()](beast::error_code ec, std::size_t) {
                if (ec || !self->res.keep_alive()) return self->close();
                self->run();
            });
        }

        void close() {
            beast::error_code ec;
            stream.socket().shutdown(tcp::socket::shutdown_both, ec);
        }

        void reply(http::status status, const char* type, std::string body) {
            res.result(status);
            res.set(http::field::content_type, type);
            res.set(http::field::server, "ingestd");
            res.body() = std::move(body);
            res.prepare_payload();
        }

        void handle(const http::request<http::empty_body>& req) {
            if (req.method() != http::verb::get && req.method() != http::verb::head) {
                res.set(http::field::allow, "GET, HEAD");
                return reply(http::status::method_not_allowed, "text/plain", "method not allowed\n");
            }
            std::string target(req.target());
            auto q = target.find('?');
            if (q != std::string::npos) target = target.substr(0, q);
            if (target == "/healthz") return reply(http::status::ok, "text/plain", "ok\n");
            if (target == "/readyz") {
                return server->ready() ? reply(http::status::ok, "text/plain", "ready\n")
                                       : reply(http::status::service_unavailable, "text/plain", "not ready\n");
            }
            if (target == "/metrics") {
                server->refresh_queue_gauges();
                return reply(http::status::ok, "text/plain; version=0.0.4; charset=utf-8", server->metrics.render());
            }
            if (target == "/") return reply(http::status::ok, "text/html; charset=utf-8", k_dashboard_html);
            if (target == "/v1/stats") return reply(http::status::ok, "application/json", server->stats_json());
            if (target == "/v1/recent") {
                try {
                    return reply(http::status::ok, "application/json", server->recent_json());
                } catch (const std::exception&) {
                    return reply(http::status::service_unavailable, "text/plain", "Redis unavailable\n");
                }
            }
            const std::string prefix = "/v1/files/";
            if (target.rfind(prefix, 0) == 0) {
                std::string rest = target.substr(prefix.size());
                std::string id = rest, size;
                auto slash = rest.find('/');
                if (slash != std::string::npos) {
                    id = rest.substr(0, slash);
                    std::string tail = rest.substr(slash + 1);
                    if (tail.rfind("thumbnail/", 0) != 0)
                        return reply(http::status::not_found, "text/plain", "not found\n");
                    size = tail.substr(10);
                    if (size != "72" && size != "144" && size != "288") {
                        return reply(http::status::not_found, "text/plain", "no such thumbnail size\n");
                    }
                }
                if (!jobs::valid_file_id(id)) return reply(http::status::not_found, "text/plain", "unknown file\n");
                std::vector<std::pair<std::string, std::string>> meta;
                try {
                    jobs::Reply r = server->redis.command({"HGETALL", server->names.metadata_key(id)});
                    if (r.is_error()) throw jobs::RedisIoError(r.str);
                    meta = r.as_pairs();
                } catch (const std::exception& e) {
                    return reply(http::status::service_unavailable, "text/plain", "Redis unavailable\n");
                }
                if (meta.empty()) return reply(http::status::not_found, "text/plain", "unknown file\n");
                if (size.empty()) {
                    nlohmann::ordered_json j = nlohmann::ordered_json::object();
                    for (auto& [k, v] : meta) j[k] = v;
                    return reply(http::status::ok, "application/json", dump(j));
                }
                std::string key, hash;
                for (auto& [k, v] : meta) {
                    if (k == "thumbnail_" + size + "_key") key = v;
                    if (k == "content_hash") hash = v;
                }
                if (key.empty()) return reply(http::status::not_found, "text/plain", "no thumbnail\n");
                try {
                    std::string bytes = open_store(server->config.storage_root, false)->read_all(key, 64 << 20);
                    std::string etag = "\"" + hash + "-" + size + "-" + std::to_string(bytes.size()) + "\"";
                    res.set(http::field::etag, etag);
                    res.set(http::field::cache_control, "private, max-age=3600");
                    if (req[http::field::if_none_match] == etag) {
                        res.result(http::status::not_modified);
                        return;
                    }
                    return reply(http::status::ok, "image/webp", std::move(bytes));
                } catch (const std::exception&) {
                    return reply(http::status::not_found, "text/plain", "thumbnail missing from storage\n");
                }
            }
            return reply(http::status::not_found, "text/plain", "not found\n");
        }
    };
};

HttpServer::HttpServer(asio::io_context& io, const Config& config, Metrics& metrics, const std::atomic<bool>& draining)
    : m_impl(std::make_shared<Impl>(io, config, metrics, draining)) {
    m_impl->start();
    log::info("HTTP endpoint listening", {{"addr", config.http_addr}});
}

HttpServer::~HttpServer() {
    beast::error_code ec;
    m_impl->acceptor.close(ec);
}

} // namespace worker
