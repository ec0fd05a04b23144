#include "worker/http.hpp"

#include "jobs/queue.hpp"
#include "jobs/redis.hpp"
#include "worker/log.hpp"
#include "worker/metrics.hpp"
#include "worker/storage.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include <set>

namespace worker {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr const char* k_dashboard = R"html(<!doctype html>
<html><head><meta charset="utf-8"><title>ingestd</title>
<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:60em}pre{background:#f4f4f4;padding:1em;overflow:auto}
input{font:inherit;width:24em}td,th{padding:2px 8px;text-align:left}</style></head>
<body><h1>ingestd</h1>
<p>Worker status: <b id="ready">…</b></p>
<h2>Look up a file</h2>
<form id="f"><input id="id" placeholder="file_id"> <button>Show</button></form>
<pre id="out"></pre>
<h2>Recent files</h2>
<table id="recent"><thead><tr><th>file_id</th><th>status</th><th>event_id</th></tr></thead><tbody></tbody></table>
<h2>Metrics</h2><pre id="metrics"></pre>
<script>
async function refresh(){
  const r = await fetch('/readyz'); document.getElementById('ready').textContent = r.ok ? 'ready' : 'not ready';
  const rr = await fetch('/v1/recent');
  if (rr.ok) {
    const rows = await rr.json(); const tb = document.querySelector('#recent tbody'); tb.textContent = '';
    for (const x of rows) { const tr = document.createElement('tr');
      for (const k of ['file_id', 'status', 'event_id']) { const td = document.createElement('td'); td.textContent = x[k] || ''; tr.appendChild(td); }
      tb.appendChild(tr); }
  }
  const m = await fetch('/metrics'); const t = await m.text();
  document.getElementById('metrics').textContent = t.split('\n').filter(l => l && !l.startsWith('#') && !l.includes('_bucket')).join('\n');
}
document.getElementById('f').onsubmit = async e => {
  e.preventDefault();
  const id = encodeURIComponent(document.getElementById('id').value);
  const r = await fetch('/v1/files/' + id);
  document.getElementById('out').textContent = r.ok ? JSON.stringify(await r.json(), null, 2) : r.status + ' ' + r.statusText;
};
refresh(); setInterval(refresh, 5000);
</script></body></html>
)html";

} // namespace

struct HttpServer::Impl : std::enable_shared_from_this<HttpServer::Impl> {
    Impl(asio::io_context& io, const Config& c, Metrics& m, const std::atomic<bool>& d)
        : io(io), config(c), metrics(m), draining(d), acceptor(io),
          redis(jobs::parse_redis_url(c.redis_url), std::chrono::milliseconds(1000)) {
        names.stream = c.stream;
        names.group = c.group;
        names.prefix = c.key_prefix;
    }

    asio::io_context& io;
    const Config& config;
    Metrics& metrics;
    const std::atomic<bool>& draining;
    tcp::acceptor acceptor;
    jobs::Redis redis;
    jobs::QueueNames names;

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
                return reply(http::status::ok, "text/plain; version=0.0.4", server->metrics.render());
            }
            if (target == "/") return reply(http::status::ok, "text/html; charset=utf-8", k_dashboard);
            if (target == "/v1/recent") {
                // The latest status changes, newest first, one row per file.
                try {
                    jobs::Reply r = server->redis.command({"XREVRANGE", server->names.results_stream(), "+", "-", "COUNT", "200"});
                    if (r.is_error()) throw jobs::RedisIoError(r.str);
                    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
                    std::set<std::string> seen;
                    for (const auto& e : r.elements) {
                        if (e.elements.size() < 2) continue;
                        nlohmann::ordered_json row = nlohmann::ordered_json::object();
                        for (auto& [k, v] : e.elements[1].as_pairs()) row[k] = v;
                        std::string id = row.value("file_id", "");
                        if (id.empty() || !seen.insert(id).second) continue;
                        rows.push_back(row);
                        if (rows.size() >= 50) break;
                    }
                    return reply(http::status::ok, "application/json",
                                 rows.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
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
                    if (tail.rfind("thumbnail/", 0) != 0) return reply(http::status::not_found, "text/plain", "not found\n");
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
                    return reply(http::status::ok, "application/json",
                                 j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
                }
                std::string key, hash;
                for (auto& [k, v] : meta) {
                    if (k == "thumbnail_" + size + "_key") key = v;
                    if (k == "content_hash") hash = v;
                }
                if (key.empty()) return reply(http::status::not_found, "text/plain", "no thumbnail\n");
                try {
                    Storage storage(server->config.storage_root, false);
                    std::string bytes = storage.read_all(key, 64 << 20);
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

HttpServer::HttpServer(asio::io_context& io, const Config& config, Metrics& metrics,
                       const std::atomic<bool>& draining)
    : m_impl(std::make_shared<Impl>(io, config, metrics, draining)) {
    m_impl->start();
    log::info("HTTP endpoint listening", {{"addr", config.http_addr}});
}

HttpServer::~HttpServer() {
    beast::error_code ec;
    m_impl->acceptor.close(ec);
}

} // namespace worker
