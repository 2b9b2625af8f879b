#pragma once
// What the forward proxy sends on: the request head rewritten to origin-form for the
// upstream, and the response head for the client, with hop-by-hop fields removed
// (Connection and every field it names, Keep-Alive, TE, Trailer, Upgrade,
// Proxy-Connection, Proxy-Authorization, Proxy-Authenticate and every other Proxy-*).
// Transfer-Encoding is kept: bodies are relayed verbatim with their framing checked.
#include <string>
#include <string_view>

#include "broker/proto/http_head.h"
#include "broker/proto/http_target.h"

namespace halo::broker::proto {

// True for a field the proxy never forwards (given the message's Connection fields).
bool is_hop_by_hop(std::string_view name, const std::vector<Field>& fields);

// "METHOD /path?q HTTP/1.1\r\nHost: authority\r\n...fields...\r\nConnection: close\r\n\r\n"
std::string upstream_request_head(const RequestHead& req, const AbsoluteTarget& target);

// The upstream's response head for the client, with "Connection: keep-alive|close".
std::string client_response_head(const ResponseHead& resp, bool keep_alive);

// A complete short answer from the broker itself (403, 400, 502, ...). `decision`
// non-empty adds "X-Halo-Decision: <decision>". Always "Connection: close" unless
// keep_alive.
std::string broker_answer(int status, std::string_view reason, std::string_view decision,
                          std::string_view body, bool keep_alive = false);

}  // namespace halo::broker::proto
