#pragma once

#include "worker/http/routes.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cstdint>
#include <memory>
#include <optional>

namespace worker::http {

/// One client connection: reads a request at a time (a POST action may carry a small body), looks it
/// up in the route table, answers at once or after the reader thread's read (503 when the
/// read budget runs out first), and keeps the connection while the client wants it.
class Session : public std::enable_shared_from_this<Session> {
public:
    /// Keeps `context` alive while the connection lasts.
    Session(boost::asio::ip::tcp::socket socket, std::shared_ptr<ServerContext> context);

    /// Starts reading the first request.
    void run();

    /// Waiting for a request (idle, or its header still arriving): nothing is lost by
    /// closing it to make room for a new connection.
    bool waiting_for_request() const { return m_waiting; }

    /// Ends the connection (the pending operation completes with an error).
    void close();

private:
    void on_read(boost::beast::error_code ec);
    void dispatch(const beast_http::request<beast_http::string_body>& raw);
    void start_read(ReadHandler handler, Request request);
    void on_answer(std::uint64_t read_id, Response response);
    void write(Response response);

    std::shared_ptr<ServerContext> m_context;
    boost::beast::tcp_stream m_stream;
    boost::beast::flat_buffer m_buffer{16384};
    std::optional<beast_http::request_parser<beast_http::string_body>> m_parser;
    beast_http::response<beast_http::string_body> m_res;
    boost::asio::steady_timer m_budget;
    bool m_awaiting = false;     ///< a read is out and neither it nor the budget has answered
    std::uint64_t m_read_id = 0; ///< which read the connection awaits (a late one is ignored)
    bool m_head = false;         ///< the request being answered is a HEAD
    bool m_waiting = false;      ///< reading a request, none being answered
};

} // namespace worker::http
