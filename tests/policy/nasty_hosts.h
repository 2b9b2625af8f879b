#pragma once
// A shared corpus of hosts that have fooled host matchers elsewhere, with what
// normalize_host must make of each. Reused by the host, decide and fuzz seed tests.
#include <string_view>
#include <vector>

namespace halo::policy::testing {

struct NastyHost {
  const char* name;      // row name
  std::string_view raw;  // as it arrives (may hold a NUL)
  const char* expected;  // canonical text, or nullptr when it must be malformed
};

inline const std::vector<NastyHost>& nasty_hosts() {
  static const std::vector<NastyHost> rows = {
      {"upper_case", "ALLOWED.COM", "allowed.com"},
      {"mixed_case", "AlLoWeD.cOm", "allowed.com"},
      {"trailing_dot", "allowed.com.", "allowed.com"},
      {"two_trailing_dots", "allowed.com..", nullptr},
      {"leading_dot", ".allowed.com", nullptr},
      {"empty_label", "allowed..com", nullptr},
      {"only_dot", ".", nullptr},
      {"empty", "", nullptr},
      {"space", "allowed .com", nullptr},
      {"underscore", "al_lowed.com", nullptr},
      {"leading_hyphen", "-allowed.com", nullptr},
      {"trailing_hyphen", "allowed-.com", nullptr},
      {"label_64", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com", nullptr},
      {"label_63", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com",
       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com"},
      {"percent_encoded", "%61llowed.com", nullptr},
      {"userinfo_at", "user@allowed.com", nullptr},
      {"backslash", "allowed.com\\evil.com", nullptr},
      {"slash", "allowed.com/evil", nullptr},
      {"nul_byte", std::string_view("allowed.com\0evil", 16), nullptr},
      {"idn_unicode", "b\xc3\xbc" "cher.example", "xn--bcher-kva.example"},
      {"idn_upper_unicode", "B\xc3\x9c" "CHER.example", "xn--bcher-kva.example"},
      {"punycode", "xn--bcher-kva.example", "xn--bcher-kva.example"},
      {"bad_punycode", "xn--zz-zzz.example", nullptr},
      {"fullwidth_dot", "allowed\xef\xbc\x8e" "com", "allowed.com"},
      {"ideographic_dot", "allowed\xe3\x80\x82" "com", "allowed.com"},
      {"fullwidth_letters", "\xef\xbd\x81llowed.com", "allowed.com"},
      {"zero_width_joiner", "allo\xe2\x80\x8bwed.com", "allowed.com"},
      {"invalid_utf8", "allo\xffwed.com", nullptr},
      {"v4_dotted", "127.0.0.1", "127.0.0.1"},
      {"v4_short", "127.1", "127.0.0.1"},
      {"v4_hex_parts", "0x7f.0.0.1", "127.0.0.1"},
      {"v4_hex_short", "0x7f.1", "127.0.0.1"},
      {"v4_octal", "0177.0.0.01", "127.0.0.1"},
      {"v4_integer", "2130706433", "127.0.0.1"},
      {"v4_hex_integer", "0x7f000001", "127.0.0.1"},
      {"v4_octal_integer", "017700000001", "127.0.0.1"},
      {"v4_three_parts", "127.0.1", "127.0.0.1"},
      {"v4_trailing_dot", "127.0.0.1.", "127.0.0.1"},
      {"v4_too_many_parts", "1.2.3.4.5", nullptr},
      {"v4_part_overflow", "1.2.3.256", nullptr},
      {"v4_integer_overflow", "4294967296", nullptr},
      {"v4_bad_octal", "08.0.0.1", nullptr},
      {"v4_metadata_int", "2852039166", "169.254.169.254"},
      {"v4_metadata_hex", "0xa9fea9fe", "169.254.169.254"},
      {"name_ending_numeric_label", "example.123", nullptr},
      {"v6_bracketed", "[::1]", "::1"},
      {"v6_bare", "::1", "::1"},
      {"v6_long_form", "[0:0:0:0:0:0:0:1]", "::1"},
      {"v6_mapped", "[::ffff:127.0.0.1]", "::ffff:127.0.0.1"},
      {"v6_mapped_hex", "[::ffff:7f00:1]", "::ffff:127.0.0.1"},
      {"v6_upper", "[2001:DB8::1]", "2001:db8::1"},
      {"v6_zone", "[fe80::1%eth0]", nullptr},
      {"v6_unterminated", "[::1", nullptr},
      {"brackets_v4", "[127.0.0.1]", nullptr},
      {"brackets_name", "[allowed.com]", nullptr},
      {"host_with_port", "allowed.com:443", nullptr},
      {"allowed_suffix_attack", "allowed.com.evil.com", "allowed.com.evil.com"},
      {"allowed_prefix_attack", "evilallowed.com", "evilallowed.com"},
  };
  return rows;
}

}  // namespace halo::policy::testing
