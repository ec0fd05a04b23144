#include "worker/http/response.hpp"

namespace worker::http {

Response text(beast_http::status status, std::string body) {
    return Response{status, "text/plain", std::move(body), {}};
}

Response json(beast_http::status status, const nlohmann::ordered_json& value) {
    return Response{
        status, "application/json", value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), {}};
}

Response unavailable(const std::string& code, const std::string& message) {
    return json(beast_http::status::service_unavailable, {{"error", code}, {"message", message}});
}

} // namespace worker::http
