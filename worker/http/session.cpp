#include "worker/http/session.hpp"

#include "worker/http/access.hpp"
#include "worker/http/context.hpp"
#include "worker/http/reader.hpp"

#include <boost/asio/post.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

namespace worker::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
using beast_http::field;

namespace {

constexpr std::size_t k_header_limit = 16384;
constexpr std::size_t k_body_limit = 65536; // an action's list of file ids
constexpr std::chrono::seconds k_io_timeout{10};

// Runs a read handler on the reader thread; a Redis failure becomes a 503.
Response run_guarded(ReadHandler handler, const Request& request, ServerContext& context, jobs::Redis& redis) {
    try {
        return handler(request, context, redis);
    } catch (const std::exception&) {
        return unavailable("redis_unavailable", "Redis unavailable");
    }
}

} // namespace

Session::Session(asio::ip::tcp::socket socket, std::shared_ptr<ServerContext> context)
    : m_context(std::move(context)), m_stream(std::move(socket)), m_budget(m_stream.get_executor()) {}

void Session::run() {
    m_parser.emplace();
    m_parser->header_limit(k_header_limit);
    m_parser->body_limit(k_body_limit);
    // The whole request header within the timeout (not per byte: a slow sender is cut off);
    // the same bound holds for an idle keep-alive connection.
    m_stream.expires_after(k_io_timeout);
    m_waiting = true;
    beast_http::async_read(m_stream, m_buffer, *m_parser,
                           [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
}

void Session::on_read(beast::error_code ec) {
    m_waiting = false;
    if (ec == beast_http::error::end_of_stream || ec == asio::error::operation_aborted || ec == beast::error::timeout) {
        return close();
    }
    m_res = {};
    if (ec) {
        m_res.version(11);
        m_res.keep_alive(false);
        m_head = false;
        return write(text(beast_http::status::bad_request, "malformed request\n"));
    }
    const auto& raw = m_parser->get();
    m_res.version(raw.version());
    m_res.keep_alive(raw.keep_alive());
    m_head = raw.method() == beast_http::verb::head;
    dispatch(raw);
}

void Session::dispatch(const beast_http::request<beast_http::string_body>& raw) {
    Request request;
    request.method = raw.method();
    const std::string_view target(raw.target().data(), raw.target().size());
    const auto question = target.find('?');
    request.path = std::string(target.substr(0, question));
    if (question != std::string_view::npos) request.query = std::string(target.substr(question + 1));
    const auto etag = raw[field::if_none_match];
    request.if_none_match.assign(etag.data(), etag.size());
    const auto content_type = raw[field::content_type];
    request.content_type.assign(content_type.data(), content_type.size());
    request.body = raw.body();
    RouteMatch match = match_route(routes(), request.method, request.path);
    if (match.route == nullptr) return write(std::move(match.refusal));
    const auto authorization = raw[field::authorization];
    const auto cookies = raw[field::cookie];
    if (auto refusal =
            refuse_access(*match.route, {authorization.data(), authorization.size()}, {cookies.data(), cookies.size()},
                          m_context->config.http_token, request.token_given)) {
        return write(std::move(*refusal));
    }
    request.params = std::move(match.params);
    if (const auto* instant = std::get_if<InstantHandler>(&match.route->handler)) {
        return write((*instant)(request, *m_context));
    }
    start_read(std::get<ReadHandler>(match.route->handler), std::move(request));
}

void Session::start_read(ReadHandler handler, Request request) {
    const auto deadline = RedisReader::Clock::now() + k_read_budget;
    const std::uint64_t read_id = ++m_read_id;
    // The reader holds the session weakly: a connection that went away is not kept for it.
    std::weak_ptr<Session> weak = weak_from_this();
    auto executor = m_stream.get_executor();
    ServerContext& context = *m_context;
    const bool queued = context.reader.post(
        deadline, [weak, executor, read_id, handler, request = std::move(request), &context](jobs::Redis& redis) {
            Response response = run_guarded(handler, request, context, redis);
            asio::post(executor, [weak, read_id, response = std::move(response)]() mutable {
                if (auto self = weak.lock()) self->on_answer(read_id, std::move(response));
            });
        });
    if (!queued) return write(unavailable("busy", "too many reads waiting"));
    m_awaiting = true;
    m_budget.expires_at(deadline);
    m_budget.async_wait([self = shared_from_this(), read_id](beast::error_code ec) {
        if (ec) return;
        self->on_answer(read_id, unavailable("redis_timeout", "Redis did not answer within one second"));
    });
}

void Session::on_answer(std::uint64_t read_id, Response response) {
    if (!m_awaiting || read_id != m_read_id) return; // the budget or the read answered first
    m_awaiting = false;
    m_budget.cancel();
    write(std::move(response));
}

void Session::write(Response response) {
    m_res.result(response.status);
    m_res.set(field::server, "ingestd");
    if (!response.content_type.empty()) m_res.set(field::content_type, response.content_type);
    for (auto& [name, value] : response.headers) m_res.set(name, value);
    m_res.body() = std::move(response.body);
    m_res.prepare_payload();
    if (m_head) {
        const auto length = m_res.body().size();
        m_res.body().clear();
        m_res.content_length(length);
    }
    m_stream.expires_after(k_io_timeout);
    beast_http::async_write(m_stream, m_res, [self = shared_from_this()](beast::error_code ec, std::size_t) {
        if (ec || !self->m_res.keep_alive()) return self->close();
        self->run();
    });
}

void Session::close() {
    m_waiting = false;
    beast::error_code ec;
    m_stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ec);
}

} // namespace worker::http
