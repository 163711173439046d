// profile.cpp: an availability profile behind resbench's external protocol
// (`resbench-external`, version 1, docs/external-protocol.md), in C++17 with the standard
// library only.
//
// Build and check it from the repository root:
//
//     g++ -O2 -std=c++17 -o profile examples/external/profile.cpp
//     resbench verify --external ./profile
//
// (or `target/debug/resbench verify --external ./profile` from a cargo build).
//
// The structure is a step function of time: a `std::map` of breakpoints, each holding the
// set of ids free from its time until the next breakpoint (the last one holds until the
// end of `u64` time). The first breakpoint is always the present. Id sets are bitsets
// (`std::vector<uint64_t>`), so the adapter takes up to 65,536 resources and refuses
// more with the welcome's `error` (or `bad_config` on a reset). Allocations and releases
// split the profile at the window's rounded edges, change the sets in between and merge
// neighbours that became equal again.
//
// It answers every op of the protocol: check, earliest, allocate, release, free_frames,
// options, load_frames and advance, and takes resets. Refusals carry the full error, with
// the argument checks in the documented order. A failure inside (a C++ exception, or an
// op line it cannot read) is answered with the `error` outcome and the adapter goes on.
// It exits with status 0 when stdin ends.

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <exception>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using Time = std::uint64_t;
constexpr Time kMax = std::numeric_limits<Time>::max();
constexpr std::uint64_t kU32Max = 4294967295ULL;
constexpr std::uint64_t kMaxCapacity = 65536;
const char* const kProtocol = "resbench-external";
constexpr int kVersion = 1;
const char* const kName = "profile.cpp";

// ---------------------------------------------------------------------------------------
// JSON: a strict reader and a few writers, for just what the protocol carries.
// ---------------------------------------------------------------------------------------

struct Json {
    enum class Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Kind::Null;
    bool boolean = false;
    std::uint64_t number = 0;
    std::string string;
    std::vector<Json> array;
    std::vector<std::pair<std::string, Json>> object;

    // The member `name`, or nullptr.
    const Json* find(const std::string& name) const {
        for (const auto& member : object) {
            if (member.first == name) return &member.second;
        }
        return nullptr;
    }
};

class Parser {
  public:
    explicit Parser(const std::string& text) : text_(text) {}

    // The one value the whole text holds; anything else around it is an error.
    Json document() {
        skip_space();
        Json value = parse_value(0);
        skip_space();
        if (pos_ != text_.size()) fail("trailing characters after the value");
        return value;
    }

  private:
    const std::string& text_;
    std::size_t pos_ = 0;

    [[noreturn]] void fail(const std::string& why) const {
        throw std::runtime_error("bad JSON at byte " + std::to_string(pos_) + ": " + why);
    }

    void skip_space() {
        while (pos_ < text_.size()) {
            char c = text_[pos_];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
            ++pos_;
        }
    }

    char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

    void expect_word(const char* word) {
        for (const char* w = word; *w != '\0'; ++w, ++pos_) {
            if (pos_ >= text_.size() || text_[pos_] != *w) fail(std::string("expected ") + word);
        }
    }

    Json parse_value(int depth) {
        if (depth > 64) fail("nested too deeply");
        if (pos_ >= text_.size()) fail("unexpected end of the line");
        Json value;
        char c = text_[pos_];
        if (c == '{') {
            value.kind = Json::Kind::Object;
            ++pos_;
            skip_space();
            if (peek() == '}') {
                ++pos_;
                return value;
            }
            for (;;) {
                skip_space();
                if (peek() != '"') fail("expected a member name");
                std::string name = parse_string();
                if (value.find(name) != nullptr) fail("duplicate member \"" + name + "\"");
                skip_space();
                if (peek() != ':') fail("expected ':'");
                ++pos_;
                skip_space();
                Json member = parse_value(depth + 1);
                value.object.emplace_back(std::move(name), std::move(member));
                skip_space();
                if (peek() == ',') {
                    ++pos_;
                    continue;
                }
                if (peek() == '}') {
                    ++pos_;
                    return value;
                }
                fail("expected ',' or '}'");
            }
        }
        if (c == '[') {
            value.kind = Json::Kind::Array;
            ++pos_;
            skip_space();
            if (peek() == ']') {
                ++pos_;
                return value;
            }
            for (;;) {
                skip_space();
                value.array.push_back(parse_value(depth + 1));
                skip_space();
                if (peek() == ',') {
                    ++pos_;
                    continue;
                }
                if (peek() == ']') {
                    ++pos_;
                    return value;
                }
                fail("expected ',' or ']'");
            }
        }
        if (c == '"') {
            value.kind = Json::Kind::String;
            value.string = parse_string();
            return value;
        }
        if (c == 't') {
            expect_word("true");
            value.kind = Json::Kind::Bool;
            value.boolean = true;
            return value;
        }
        if (c == 'f') {
            expect_word("false");
            value.kind = Json::Kind::Bool;
            return value;
        }
        if (c == 'n') {
            expect_word("null");
            return value;
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            value.kind = Json::Kind::Number;
            value.number = parse_number();
            return value;
        }
        fail(std::string("unexpected character '") + (c >= 0x20 && c < 0x7f ? c : '?') + "'");
    }

    // A JSON number that must be an unsigned 64-bit integer, read digit by digit (never
    // through a double). The whole JSON grammar is accepted, then anything that is not
    // such an integer (a sign, a fraction, an exponent, too large) is refused.
    std::uint64_t parse_number() {
        bool negative = false;
        if (peek() == '-') {
            negative = true;
            ++pos_;
        }
        if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit");
        std::uint64_t n = 0;
        bool overflow = false;
        if (peek() == '0') {
            ++pos_;
            if (peek() >= '0' && peek() <= '9') fail("leading zero in a number");
        } else {
            while (peek() >= '0' && peek() <= '9') {
                unsigned digit = static_cast<unsigned>(text_[pos_] - '0');
                if (n > (kMax - digit) / 10) overflow = true;
                n = n * 10 + digit;
                ++pos_;
            }
        }
        bool fraction = false;
        bool exponent = false;
        if (peek() == '.') {
            fraction = true;
            ++pos_;
            if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit after '.'");
            while (peek() >= '0' && peek() <= '9') ++pos_;
        }
        if (peek() == 'e' || peek() == 'E') {
            exponent = true;
            ++pos_;
            if (peek() == '+' || peek() == '-') ++pos_;
            if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit in the exponent");
            while (peek() >= '0' && peek() <= '9') ++pos_;
        }
        if (negative || fraction || exponent || overflow) {
            fail("a number that is not an unsigned 64-bit integer");
        }
        return n;
    }

    unsigned parse_hex4() {
        unsigned code = 0;
        for (int i = 0; i < 4; ++i, ++pos_) {
            char c = peek();
            code <<= 4;
            if (c >= '0' && c <= '9') {
                code |= static_cast<unsigned>(c - '0');
            } else if (c >= 'a' && c <= 'f') {
                code |= static_cast<unsigned>(c - 'a' + 10);
            } else if (c >= 'A' && c <= 'F') {
                code |= static_cast<unsigned>(c - 'A' + 10);
            } else {
                fail("bad \\u escape");
            }
        }
        return code;
    }

    static void put_utf8(std::string& out, unsigned code) {
        if (code < 0x80) {
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (code >> 18));
            out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        }
    }

    // One raw UTF-8 character starting at `pos_`, checked and copied.
    void copy_utf8(std::string& out) {
        unsigned char lead = static_cast<unsigned char>(text_[pos_]);
        int extra;
        unsigned code;
        if (lead < 0x80) {
            extra = 0;
            code = lead;
        } else if (lead >= 0xC2 && lead <= 0xDF) {
            extra = 1;
            code = lead & 0x1F;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            extra = 2;
            code = lead & 0x0F;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            extra = 3;
            code = lead & 0x07;
        } else {
            fail("invalid UTF-8");
        }
        std::size_t start = pos_++;
        for (int i = 0; i < extra; ++i, ++pos_) {
            unsigned char c = static_cast<unsigned char>(peek());
            if (pos_ >= text_.size() || (c & 0xC0) != 0x80) fail("invalid UTF-8");
            code = (code << 6) | (c & 0x3F);
        }
        static const unsigned kLeast[] = {0, 0x80, 0x800, 0x10000};
        if (code < kLeast[extra] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
            fail("invalid UTF-8");
        }
        out.append(text_, start, pos_ - start);
    }

    std::string parse_string() {
        ++pos_;  // the opening quote
        std::string out;
        for (;;) {
            if (pos_ >= text_.size()) fail("unterminated string");
            char c = text_[pos_];
            if (c == '"') {
                ++pos_;
                return out;
            }
            if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
            if (c != '\\') {
                copy_utf8(out);
                continue;
            }
            ++pos_;
            char e = peek();
            ++pos_;
            switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    unsigned code = parse_hex4();
                    if (code >= 0xDC00 && code <= 0xDFFF) fail("lone low surrogate");
                    if (code >= 0xD800 && code <= 0xDBFF) {
                        if (peek() != '\\') fail("lone high surrogate");
                        ++pos_;
                        if (peek() != 'u') fail("lone high surrogate");
                        ++pos_;
                        unsigned low = parse_hex4();
                        if (low < 0xDC00 || low > 0xDFFF) fail("lone high surrogate");
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                    }
                    put_utf8(out, code);
                    break;
                }
                default:
                    --pos_;
                    fail("bad escape");
            }
        }
    }
};

// `text` as a JSON string. Bytes outside ASCII are replaced by '?', so a message that
// quotes a broken input line is still valid UTF-8.
std::string quote(const std::string& text) {
    static const char kHex[] = "0123456789abcdef";
    std::string out = "\"";
    for (char ch : text) {
        unsigned char c = static_cast<unsigned char>(ch);
        if (c == '"') {
            out += "\\\"";
        } else if (c == '\\') {
            out += "\\\\";
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c < 0x20) {
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        } else if (c >= 0x80) {
            out += '?';
        } else {
            out += ch;
        }
    }
    return out + "\"";
}

std::string num(std::uint64_t n) { return std::to_string(n); }

// Field access on an op line: a missing field or a wrong type is an internal failure,
// answered with the `error` outcome.
const Json& field(const Json& object, const char* name) {
    if (object.kind != Json::Kind::Object) throw std::runtime_error("expected an object");
    const Json* value = object.find(name);
    if (value == nullptr) throw std::runtime_error(std::string("missing field \"") + name + "\"");
    return *value;
}

std::uint64_t as_u64(const Json& value, const char* what) {
    if (value.kind != Json::Kind::Number) throw std::runtime_error(std::string(what) + " is not a number");
    return value.number;
}

std::uint64_t as_u32(const Json& value, const char* what) {
    std::uint64_t n = as_u64(value, what);
    if (n > kU32Max) throw std::runtime_error(std::string(what) + " does not fit in 32 bits");
    return n;
}

std::uint64_t u64_field(const Json& object, const char* name) { return as_u64(field(object, name), name); }

std::uint64_t u32_field(const Json& object, const char* name) { return as_u32(field(object, name), name); }

// ---------------------------------------------------------------------------------------
// Id sets: a bitset of `capacity` bits.
// ---------------------------------------------------------------------------------------

// The index of the lowest set bit of a non-zero word (a portable count of trailing zeros).
unsigned lowest_bit(std::uint64_t word) {
    static const unsigned kDeBruijn[64] = {
        0,  1,  2,  53, 3,  7,  54, 27, 4,  38, 41, 8,  34, 55, 48, 28, 62, 5,  39, 46, 44, 42,
        22, 9,  24, 35, 59, 56, 49, 18, 29, 11, 63, 52, 6,  26, 37, 40, 33, 47, 61, 45, 43, 21,
        23, 58, 17, 10, 51, 25, 36, 32, 60, 20, 57, 16, 50, 31, 19, 15, 30, 14, 13, 12};
    return kDeBruijn[((word & (~word + 1)) * 0x022FDD63CC95386DULL) >> 58];
}

class IdSet {
  public:
    IdSet() = default;
    explicit IdSet(std::size_t words) : bits_(words, 0) {}

    static IdSet full(std::uint64_t capacity) {
        IdSet set(words_for(capacity));
        set.add_range(0, capacity);
        return set;
    }

    static std::size_t words_for(std::uint64_t capacity) { return static_cast<std::size_t>((capacity + 63) / 64); }

    void add_range(std::uint64_t lo, std::uint64_t hi) {
        for (std::uint64_t id = lo; id < hi;) {
            std::size_t w = static_cast<std::size_t>(id / 64);
            unsigned from = static_cast<unsigned>(id % 64);
            std::uint64_t to = std::min<std::uint64_t>(hi - id + from, 64);
            std::uint64_t mask = (to == 64 ? kMax : ((std::uint64_t{1} << to) - 1)) & (kMax << from);
            bits_[w] |= mask;
            id += to - from;
        }
    }

    void add(std::uint64_t id) { bits_[static_cast<std::size_t>(id / 64)] |= std::uint64_t{1} << (id % 64); }

    bool empty() const {
        for (std::uint64_t w : bits_) {
            if (w != 0) return false;
        }
        return true;
    }

    std::uint64_t count() const {
        std::uint64_t n = 0;
        for (std::uint64_t w : bits_) n += std::bitset<64>(w).count();
        return n;
    }

    bool operator==(const IdSet& other) const { return bits_ == other.bits_; }
    bool operator!=(const IdSet& other) const { return bits_ != other.bits_; }

    IdSet& operator&=(const IdSet& other) {
        for (std::size_t i = 0; i < bits_.size(); ++i) bits_[i] &= other.bits_[i];
        return *this;
    }
    IdSet& operator|=(const IdSet& other) {
        for (std::size_t i = 0; i < bits_.size(); ++i) bits_[i] |= other.bits_[i];
        return *this;
    }
    // Removes the ids of `other`.
    IdSet& subtract(const IdSet& other) {
        for (std::size_t i = 0; i < bits_.size(); ++i) bits_[i] &= ~other.bits_[i];
        return *this;
    }
    IdSet minus(const IdSet& other) const {
        IdSet out = *this;
        return out.subtract(other);
    }
    IdSet intersect(const IdSet& other) const {
        IdSet out = *this;
        return out &= other;
    }
    bool subset_of(const IdSet& other) const {
        for (std::size_t i = 0; i < bits_.size(); ++i) {
            if ((bits_[i] & ~other.bits_[i]) != 0) return false;
        }
        return true;
    }

    // Calls `f(id)` for every id in the set, lowest first.
    template <typename F>
    void each(F f) const {
        for (std::size_t i = 0; i < bits_.size(); ++i) {
            for (std::uint64_t w = bits_[i]; w != 0; w &= w - 1) f(std::uint64_t{i} * 64 + lowest_bit(w));
        }
    }

    // The set as JSON: sorted, disjoint, non-adjacent half-open ranges.
    std::string json() const {
        std::string out = "[";
        bool in_run = false;
        std::uint64_t lo = 0;
        std::uint64_t total = std::uint64_t{bits_.size()} * 64;
        for (std::uint64_t id = 0; id <= total; ++id) {
            bool set = id < total && ((bits_[static_cast<std::size_t>(id / 64)] >> (id % 64)) & 1) != 0;
            if (set && !in_run) {
                lo = id;
                in_run = true;
            } else if (!set && in_run) {
                if (out.size() > 1) out += ',';
                out += "[" + num(lo) + "," + num(id) + "]";
                in_run = false;
            }
        }
        return out + "]";
    }

  private:
    std::vector<std::uint64_t> bits_;
};

// ---------------------------------------------------------------------------------------
// The index.
// ---------------------------------------------------------------------------------------

// A refusal: `error` is the error as resbench spells it (JSON).
struct Refused {
    std::string error;
};

std::string frame_json(Time start, Time end, const IdSet& free) {
    return "{\"start\":" + num(start) + ",\"end\":" + num(end) + ",\"free\":" + free.json() + "}";
}

struct Config {
    std::uint64_t capacity = 0;
    Time slot = 1;
    bool has_horizon = false;
    Time horizon = 0;
};

// Why an index of `config` cannot be built, or "" when it can.
std::string config_problem(const Config& config) {
    if (config.capacity == 0) return "capacity must be at least 1";
    if (config.slot == 0) return "slot width must be at least 1";
    if (config.has_horizon && (config.horizon == 0 || config.horizon % config.slot != 0)) {
        return "horizon must be a positive multiple of the slot width";
    }
    if (config.capacity > kMaxCapacity) {
        return std::string(kName) + " takes at most " + num(kMaxCapacity) + " resources, not " +
               num(config.capacity);
    }
    return "";
}

class Profile {
  public:
    explicit Profile(const Config& config) : config_(config), full_(IdSet::full(config.capacity)) {
        free_.emplace(0, full_);
    }

    // ---- argument rules, in the documented order ---------------------------------------

    Time floor(Time t) const { return t / config_.slot * config_.slot; }

    // `t` rounded up to a slot boundary; false when that does not fit in 64 bits.
    bool ceil(Time t, Time& out) const {
        Time q = t / config_.slot + (t % config_.slot != 0 ? 1 : 0);
        if (q > kMax / config_.slot) return false;
        out = q * config_.slot;
        return true;
    }

    Time limit() const {
        if (!config_.has_horizon) return floor(kMax);
        Time sum = now_ > kMax - config_.horizon ? kMax : now_ + config_.horizon;
        return floor(sum);
    }

    // The window [start, end) rounded to slots, or the refusal.
    std::pair<Time, Time> window(Time start, Time end) const {
        if (end <= start) {
            throw Refused{"{\"empty_window\":{\"start\":" + num(start) + ",\"end\":" + num(end) + "}}"};
        }
        if (start < now_) {
            throw Refused{"{\"before_past\":{\"time\":" + num(start) + ",\"now\":" + num(now_) + "}}"};
        }
        Time lim = limit();
        Time e = 0;
        if (!ceil(end, e) || e > lim) {
            throw Refused{"{\"beyond_horizon\":{\"end\":" + num(end) + ",\"limit\":" + num(lim) + "}}"};
        }
        return {floor(start), e};
    }

    void search(Time ready, Time duration) const {
        if (duration == 0) {
            throw Refused{"{\"empty_window\":{\"start\":" + num(ready) + ",\"end\":" + num(ready) + "}}"};
        }
        if (ready > kMax - duration) {
            throw Refused{"{\"overflow\":{\"start\":" + num(ready) + ",\"duration\":" + num(duration) + "}}"};
        }
        window(ready, ready + duration);
    }

    void count(std::uint64_t n) const {
        if (n == 0 || n > config_.capacity) {
            throw Refused{"{\"bad_count\":{\"n\":" + num(n) + ",\"capacity\":" + num(config_.capacity) + "}}"};
        }
    }

    // The ids of a set given as ranges, or the refusal (empty, then out of range).
    IdSet id_set(std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges) const {
        ranges.erase(std::remove_if(ranges.begin(), ranges.end(), [](const auto& r) { return r.first >= r.second; }),
                     ranges.end());
        if (ranges.empty()) throw Refused{"\"empty_set\""};
        std::sort(ranges.begin(), ranges.end());
        for (const auto& r : ranges) {
            if (r.second > config_.capacity) {
                std::uint64_t id = std::max(r.first, config_.capacity);
                throw Refused{"{\"id_out_of_range\":{\"id\":" + num(id) + ",\"capacity\":" + num(config_.capacity) +
                              "}}"};
            }
        }
        IdSet set(IdSet::words_for(config_.capacity));
        for (const auto& r : ranges) set.add_range(r.first, r.second);
        return set;
    }

    // ---- the operations ------------------------------------------------------------------

    std::string check(Time start, Time end, std::uint64_t n) const {
        auto w = window(start, end);
        count(n);
        IdSet free = free_throughout(w.first, w.second);
        if (free.count() < n) return "{\"outcome\":\"free\",\"value\":null}";
        return "{\"outcome\":\"free\",\"value\":" + free.json() + "}";
    }

    // The smallest start at or after `ready` that fits. Only `ready` and the breakpoints
    // where some id becomes free can be the first; the search stops at the first
    // candidate whose rounded end passes the limit, since later ones end later.
    std::string earliest(Time ready, Time duration, std::uint64_t n) const {
        search(ready, duration);
        count(n);
        Time lim = limit();
        std::string found;
        auto attempt = [&](Time t) -> bool {  // true: stop searching
            if (t > kMax - duration) return true;
            Time end = t + duration;
            Time e = 0;
            if (!ceil(end, e) || e > lim) return true;
            IdSet free = free_throughout(floor(t), e);
            if (free.count() < n) return false;
            found = frame_json(t, end, free);
            return true;
        };
        if (!attempt(ready)) {
            auto it = free_.upper_bound(ready);
            for (; it != free_.end(); ++it) {
                if (it->second.subset_of(std::prev(it)->second)) continue;  // no id comes back here
                if (attempt(it->first)) break;
            }
        }
        if (found.empty()) return "{\"outcome\":\"start\",\"value\":null}";
        return "{\"outcome\":\"start\",\"value\":" + found + "}";
    }

    std::string allocate(Time start, Time end, const std::vector<std::pair<std::uint64_t, std::uint64_t>>& ranges) {
        auto w = window(start, end);
        IdSet set = id_set(ranges);
        IdSet busy = set.minus(free_throughout(w.first, w.second));
        if (!busy.empty()) {
            throw Refused{"{\"not_free\":{\"start\":" + num(start) + ",\"end\":" + num(end) +
                          ",\"busy\":" + busy.json() + "}}"};
        }
        change(w.first, w.second, set, false);
        return "{\"outcome\":\"done\"}";
    }

    std::string release(Time start, Time end, const std::vector<std::pair<std::uint64_t, std::uint64_t>>& ranges) {
        auto w = window(start, end);
        IdSet set = id_set(ranges);
        IdSet free = set.intersect(free_somewhere(w.first, w.second));
        if (!free.empty()) {
            throw Refused{"{\"not_allocated\":{\"start\":" + num(start) + ",\"end\":" + num(end) +
                          ",\"free\":" + free.json() + "}}"};
        }
        change(w.first, w.second, set, true);
        return "{\"outcome\":\"done\"}";
    }

    // Each id's maximal free runs inside the window, one frame per distinct run with all
    // its ids, sorted by (start, end).
    std::string free_frames(Time from, Time to) const {
        auto w = window(from, to);
        Time s = w.first;
        Time e = w.second;
        std::map<std::pair<Time, Time>, IdSet> frames;
        std::vector<Time> run_start(static_cast<std::size_t>(config_.capacity), 0);
        IdSet before(IdSet::words_for(config_.capacity));
        auto close = [&](const IdSet& ended, Time at) {
            ended.each([&](std::uint64_t id) {
                auto key = std::make_pair(run_start[static_cast<std::size_t>(id)], at);
                auto slot = frames.find(key);
                if (slot == frames.end()) slot = frames.emplace(key, IdSet(IdSet::words_for(config_.capacity))).first;
                slot->second.add(id);
            });
        };
        for (auto it = std::prev(free_.upper_bound(s)); it != free_.end() && it->first < e; ++it) {
            Time at = std::max(it->first, s);
            close(before.minus(it->second), at);
            it->second.minus(before).each([&](std::uint64_t id) { run_start[static_cast<std::size_t>(id)] = at; });
            before = it->second;
        }
        close(before, e);
        std::string out = "{\"outcome\":\"frames\",\"value\":[";
        bool first = true;
        for (const auto& f : frames) {
            if (!first) out += ',';
            first = false;
            out += frame_json(f.first.first, f.first.second, f.second);
        }
        return out + "]}";
    }

    // The maximal free rectangles inside the window (its edges count as maximal) of at
    // least `min_duration` and `min_n` ids, sorted by (start, end).
    std::string options(Time from, Time to, Time min_duration, std::uint64_t min_n) const {
        auto w = window(from, to);
        Time s = w.first;
        Time e = w.second;
        std::vector<Time> points;
        std::vector<const IdSet*> sets;  // sets[i]: free over [points[i], points[i + 1])
        for (auto it = std::prev(free_.upper_bound(s)); it != free_.end() && it->first < e; ++it) {
            points.push_back(std::max(it->first, s));
            sets.push_back(&it->second);
        }
        points.push_back(e);
        std::size_t segments = sets.size();
        std::string out = "{\"outcome\":\"frames\",\"value\":[";
        bool first = true;
        for (std::size_t i = 0; i < segments; ++i) {
            IdSet free = *sets[i];
            for (std::size_t j = i + 1; j <= segments; ++j) {
                if (j > i + 1) free &= *sets[j - 1];
                std::uint64_t n = free.count();
                if (n == 0 || n < min_n) break;  // it only shrinks as the end moves on
                bool left = i == 0 || !free.subset_of(*sets[i - 1]);
                bool right = j == segments || !free.subset_of(*sets[j]);
                if (left && right && points[j] - points[i] >= min_duration) {
                    if (!first) out += ',';
                    first = false;
                    out += frame_json(points[i], points[j], free);
                }
            }
        }
        return out + "]}";
    }

    struct Frame {
        Time start;
        Time end;
        std::vector<std::pair<std::uint64_t, std::uint64_t>> free;
    };

    // From the present to the limit, exactly the frames are free: everything busy, then
    // each frame released in turn, on a copy so a refusal changes nothing.
    std::string load_frames(const std::vector<Frame>& frames) {
        Profile fresh(config_);
        fresh.now_ = now_;
        fresh.free_.clear();
        fresh.free_.emplace(now_, full_);
        Time lim = limit();
        if (now_ < lim) {
            std::vector<std::pair<std::uint64_t, std::uint64_t>> all{{0, config_.capacity}};
            fresh.allocate(now_, lim, all);
        }
        for (const Frame& f : frames) fresh.release(f.start, f.end, f.free);
        *this = std::move(fresh);
        return "{\"outcome\":\"done\"}";
    }

    std::string advance(Time to) {
        if (to < now_) {
            throw Refused{"{\"before_past\":{\"time\":" + num(to) + ",\"now\":" + num(now_) + "}}"};
        }
        now_ = floor(to);
        auto last = free_.upper_bound(now_);
        IdSet current = std::prev(last)->second;
        free_.erase(free_.begin(), last);
        auto it = free_.emplace(now_, std::move(current)).first;
        auto next = std::next(it);
        if (next != free_.end() && next->second == it->second) free_.erase(next);
        return "{\"outcome\":\"done\"}";
    }

  private:
    Config config_;
    IdSet full_;
    Time now_ = 0;
    // Breakpoint -> the ids free from it to the next breakpoint (or the end of time). The
    // first breakpoint is the present; there is always one.
    std::map<Time, IdSet> free_;

    // The ids free at every instant of [s, e).
    IdSet free_throughout(Time s, Time e) const {
        IdSet free = full_;
        for (auto it = std::prev(free_.upper_bound(s)); it != free_.end() && it->first < e; ++it) free &= it->second;
        return free;
    }

    // The ids free at some instant of [s, e).
    IdSet free_somewhere(Time s, Time e) const {
        IdSet free(IdSet::words_for(config_.capacity));
        for (auto it = std::prev(free_.upper_bound(s)); it != free_.end() && it->first < e; ++it) free |= it->second;
        return free;
    }

    // Makes `t` a breakpoint (it is at or after the present).
    void split(Time t) {
        auto after = free_.upper_bound(t);
        auto at = std::prev(after);
        if (at->first != t) free_.emplace_hint(after, t, at->second);
    }

    // Frees (`release`) or takes `set` over [s, e), then merges equal neighbours there.
    void change(Time s, Time e, const IdSet& set, bool release) {
        split(s);
        split(e);
        for (auto it = free_.find(s); it != free_.end() && it->first < e; ++it) {
            if (release) {
                it->second |= set;
            } else {
                it->second.subtract(set);
            }
        }
        auto it = free_.find(s);
        if (it != free_.begin()) it = std::prev(it);
        while (it != free_.end() && it->first <= e) {
            auto next = std::next(it);
            if (next != free_.end() && next->first <= e && next->second == it->second) {
                free_.erase(next);
            } else {
                it = next;
            }
        }
    }
};

// ---------------------------------------------------------------------------------------
// The protocol.
// ---------------------------------------------------------------------------------------

std::vector<std::pair<std::uint64_t, std::uint64_t>> read_set(const Json& value) {
    if (value.kind != Json::Kind::Array) throw std::runtime_error("a set is not an array");
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
    for (const Json& range : value.array) {
        if (range.kind != Json::Kind::Array || range.array.size() != 2) {
            throw std::runtime_error("a range is not a pair [lo, hi]");
        }
        ranges.emplace_back(as_u32(range.array[0], "a range's lo"), as_u32(range.array[1], "a range's hi"));
    }
    return ranges;
}

Config read_config(const Json& line) {
    Config config;
    config.capacity = u32_field(line, "capacity");
    config.slot = u64_field(line, "slot");
    const Json& horizon = field(line, "horizon");
    if (horizon.kind != Json::Kind::Null) {
        config.has_horizon = true;
        config.horizon = as_u64(horizon, "horizon");
    }
    return config;
}

// One op to its result record (the value of "result").
std::string apply(Profile& index, const Json& op, const std::string& kind) {
    try {
        if (kind == "check") {
            return index.check(u64_field(op, "start"), u64_field(op, "end"), u32_field(op, "n"));
        }
        if (kind == "earliest") {
            return index.earliest(u64_field(op, "ready"), u64_field(op, "duration"), u32_field(op, "n"));
        }
        if (kind == "allocate") {
            return index.allocate(u64_field(op, "start"), u64_field(op, "end"), read_set(field(op, "set")));
        }
        if (kind == "release") {
            return index.release(u64_field(op, "start"), u64_field(op, "end"), read_set(field(op, "set")));
        }
        if (kind == "free_frames") {
            return index.free_frames(u64_field(op, "from"), u64_field(op, "to"));
        }
        if (kind == "options") {
            return index.options(u64_field(op, "from"), u64_field(op, "to"), u64_field(op, "min_duration"),
                                 u32_field(op, "min_n"));
        }
        if (kind == "load_frames") {
            const Json& list = field(op, "frames");
            if (list.kind != Json::Kind::Array) throw std::runtime_error("frames is not an array");
            std::vector<Profile::Frame> frames;
            for (const Json& f : list.array) {
                frames.push_back({u64_field(f, "start"), u64_field(f, "end"), read_set(field(f, "free"))});
            }
            return index.load_frames(frames);
        }
        if (kind == "advance") {
            return index.advance(u64_field(op, "now"));
        }
    } catch (const Refused& refused) {
        return "{\"outcome\":\"failed\",\"value\":" + refused.error + "}";
    }
    throw std::runtime_error("unknown op \"" + kind + "\"");
}

void send(const std::string& line) {
    std::cout << line << '\n';
    std::cout.flush();
}

void send_result(const std::string& result) { send("{\"result\":" + result + "}"); }

std::string welcome_head() { return std::string("{\"protocol\":\"") + kProtocol + "\",\"version\":" + num(kVersion); }

bool blank(const std::string& line) {
    return line.find_first_not_of(" \t\r\n") == std::string::npos;
}

int serve() {
    std::string line;
    do {
        if (!std::getline(std::cin, line)) return 0;
    } while (blank(line));

    Config config;
    try {
        Json hello = Parser(line).document();
        const Json* protocol = hello.find("protocol");
        const Json* version = hello.find("version");
        if (hello.kind != Json::Kind::Object || protocol == nullptr || protocol->kind != Json::Kind::String ||
            protocol->string != kProtocol || version == nullptr || version->kind != Json::Kind::Number ||
            version->number != static_cast<std::uint64_t>(kVersion)) {
            send(welcome_head() + ",\"error\":" +
                 quote(std::string("this adapter speaks ") + kProtocol + " version " + num(kVersion) + " only") +
                 "}");
            return 0;
        }
        config = read_config(hello);
    } catch (const std::exception& failure) {
        send(welcome_head() + ",\"error\":" + quote(std::string("cannot read the hello: ") + failure.what()) + "}");
        return 0;
    }
    std::string problem = config_problem(config);
    if (!problem.empty()) {
        send(welcome_head() + ",\"error\":" + quote(problem) + "}");
        return 0;
    }
    std::unique_ptr<Profile> index(new Profile(config));
    send(welcome_head() + ",\"name\":" + quote(kName) +
         ",\"supports\":[\"check\",\"earliest\",\"allocate\",\"release\",\"free_frames\",\"options\","
         "\"load_frames\",\"advance\",\"reset\"]}");

    while (std::getline(std::cin, line)) {
        if (blank(line)) continue;
        try {
            Json op = Parser(line).document();
            const Json& name = field(op, "op");
            if (name.kind != Json::Kind::String) throw std::runtime_error("\"op\" is not a string");
            if (name.string == "reset") {
                Config fresh = read_config(op);
                std::string why = config_problem(fresh);
                if (!why.empty()) {
                    index.reset();
                    send_result("{\"outcome\":\"failed\",\"value\":{\"bad_config\":{\"reason\":" + quote(why) + "}}}");
                    continue;
                }
                index.reset(new Profile(fresh));
                send_result("{\"outcome\":\"done\"}");
                continue;
            }
            if (!index) throw std::runtime_error("no index: the last reset was refused");
            send_result(apply(*index, op, name.string));
        } catch (const std::exception& failure) {
            send_result("{\"outcome\":\"error\",\"value\":" + quote(std::string(kName) + ": " + failure.what()) + "}");
        } catch (...) {
            send_result("{\"outcome\":\"error\",\"value\":" + quote(std::string(kName) + ": unknown exception") + "}");
        }
    }
    return 0;
}

}  // namespace

int main() {
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    return serve();
}
