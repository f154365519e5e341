// The spec text grammar: printing the long form and parsing long and short forms, with errors that quote the
// text and mark the offending token (`matmul >>128x256<< f32`).
#include "spec/text.h"

#include <cctype>
#include <ostream>
#include <sstream>

#include "spec/error.h"
#include "spec/overloaded.h"

namespace kriek {

// ---- Printing ----

std::string op_text(const PrimitiveOp& op) {
  std::ostringstream out;
  out << op_word(op);
  std::visit(overloaded{[&](const Matmul& m) { out << (m.accumulate ? "[acc]" : ""); },
                        [&](const Conv& c) {
                          // Only what differs from the defaults, so texts written before strides and padding
                          // existed read and print the same.
                          std::vector<std::string> mods;
                          if (c.accumulate) mods.push_back("acc");
                          auto pair = [](const std::array<std::uint32_t, 2>& v) {
                            return v[0] == v[1] ? std::to_string(v[0]) : std::to_string(v[0]) + "x" + std::to_string(v[1]);
                          };
                          if (c.stride != Conv{}.stride) mods.push_back("stride=" + pair(c.stride));
                          if (c.pad != Conv{}.pad) mods.push_back("pad=" + pair(c.pad));
                          for (std::size_t i = 0; i < mods.size(); ++i) out << (i ? "," : "[") << mods[i];
                          if (!mods.empty()) out << "]";
                        },
                        [&](const ReduceSum& r) { out << "[axis=" << int(r.axis) << (r.accumulate ? ",acc]" : "]"); },
                        [](const Move&) {}, [](const Zero&) {}, [](const Unary&) {}, [](const Binary&) {}},
             op);
  return out.str();
}

std::string op_text(const Op& op) {
  if (const auto* c = std::get_if<Compose>(&op)) {
    std::string s = "compose[";
    for (std::size_t i = 0; i < c->stages.size(); ++i) s += (i ? ", " : "") + op_text(c->stages[i]);
    return s + "]";
  }
  return op_text(*primitive(op));
}

std::string tensor_text(const TensorSpec& t) {
  std::ostringstream out;
  print_shape(out, t.shape);
  out << ' ' << dtype_name(t.dtype) << ' ' << level_name(t.level) << ' ' << layout_text(t.layout);
  if (t.vector_size) out << " v" << t.vector_size;
  if (!t.aligned) out << " unaligned";
  if (!t.contiguous) out << " strided" << (t.run_dims > 1 ? ":" + std::to_string(t.run_dims) : "");
  if (t.shared) out << " shared";
  return out.str();
}

std::string spec_text(const Spec& s) {
  std::string text = op_text(s.op) + " (";
  for (std::size_t i = 0; i < s.operands.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == s.operands.size() ? " -> " : ", ") + tensor_text(s.operands[i]);
  }
  if (s.operands.size() == 1) text = op_text(s.op) + " (-> " + tensor_text(s.operands[0]);
  return text + ")" + (s.serial_only ? " serial" : "");
}

std::ostream& operator<<(std::ostream& out, const TensorSpec& t) { return out << tensor_text(t); }
std::ostream& operator<<(std::ostream& out, const Spec& s) { return out << spec_text(s); }

// ---- Parsing ----

namespace {

struct Token {
  std::string text;
  std::size_t begin = 0, end = 0;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) { tokenize(); }

  [[noreturn]] void fail(const std::string& what, std::size_t token) const {
    std::string marked(text_);
    if (token < tokens_.size()) {
      marked = std::string(text_.substr(0, tokens_[token].begin)) + ">>" + tokens_[token].text + "<<" +
               std::string(text_.substr(tokens_[token].end));
    } else {
      marked += " >><<";
    }
    user_error(what, ": ", marked);
  }

  std::size_t size() const { return tokens_.size(); }
  const std::string& at(std::size_t i) const {
    if (i >= tokens_.size()) fail("the text ends early", i);
    return tokens_[i].text;
  }

 private:
  void tokenize() {
    std::size_t i = 0;
    while (i < text_.size()) {
      if (std::isspace(static_cast<unsigned char>(text_[i]))) {
        ++i;
        continue;
      }
      const std::size_t begin = i;
      if (text_[i] == '(' || text_[i] == ')' || text_[i] == ',') {
        ++i;
      } else if (text_.substr(i, 2) == "->") {
        i += 2;
      } else {
        int depth = 0;
        while (i < text_.size()) {
          const char c = text_[i];
          if (c == '[') ++depth;
          if (c == ']') --depth;
          if (depth == 0 && (std::isspace(static_cast<unsigned char>(c)) || c == '(' || c == ')' || c == ',' ||
                             text_.substr(i, 2) == "->")) {
            break;
          }
          ++i;
        }
      }
      tokens_.push_back({std::string(text_.substr(begin, i - begin)), begin, i});
    }
  }

  std::string_view text_;
  std::vector<Token> tokens_;
};

std::optional<Shape> parse_shape(const std::string& s) {
  Shape shape;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, 'x')) {
    if (part.empty() || part.size() > 12 || !std::all_of(part.begin(), part.end(), ::isdigit)) return std::nullopt;
    const auto e = std::stoll(part);
    if (e < 1 || e > (std::int64_t{1} << 31) - 1) return std::nullopt;
    if (shape.size() == kMaxViewRank) return std::nullopt;
    shape.push_back(e);
  }
  if (shape.empty() || s.back() == 'x') return std::nullopt;
  return shape;
}

std::optional<Layout> parse_layout(const std::string& s) {
  if (s == "row") return Layout::row_major();
  if (s == "col") return Layout::col_major();
  if (s.rfind("blk", 0) != 0) return std::nullopt;
  const auto colon = s.find(':');
  if (colon == std::string::npos) return std::nullopt;
  const std::string d = s.substr(3, colon - 3), b = s.substr(colon + 1);
  if (d.empty() || b.empty() || d.size() > 2 || b.size() > 9 || !std::all_of(d.begin(), d.end(), ::isdigit) ||
      !std::all_of(b.begin(), b.end(), ::isdigit)) {
    return std::nullopt;
  }
  return Layout::blocked(static_cast<std::uint8_t>(std::stoi(d)), static_cast<std::uint32_t>(std::stoul(b)));
}

/// "N" or "NxM" (rows x columns) after a conv modifier's '=', e.g. the "2x1" of "stride=2x1".
std::optional<std::array<std::uint32_t, 2>> parse_pair(const std::string& v) {
  const auto x = v.find('x');
  const std::string a = v.substr(0, x), b = x == std::string::npos ? a : v.substr(x + 1);
  for (const std::string& n : {a, b}) {
    if (n.empty() || n.size() > 6 || !std::all_of(n.begin(), n.end(), ::isdigit)) return std::nullopt;
  }
  return std::array<std::uint32_t, 2>{static_cast<std::uint32_t>(std::stoul(a)), static_cast<std::uint32_t>(std::stoul(b))};
}

/// A primitive op from its word and modifiers, e.g. "reducesum[axis=1,acc]", "conv[stride=2,pad=1]".
std::optional<PrimitiveOp> parse_primitive(std::string word) {
  std::string mods;
  if (const auto open = word.find('['); open != std::string::npos) {
    if (word.back() != ']') return std::nullopt;
    mods = word.substr(open + 1, word.size() - open - 2);
    word = word.substr(0, open);
  }
  bool acc = false;
  int axis = -1;
  std::optional<std::array<std::uint32_t, 2>> stride, pad;
  std::stringstream in(mods);
  std::string m;
  while (std::getline(in, m, ',')) {
    m.erase(0, m.find_first_not_of(' '));
    m.erase(m.find_last_not_of(' ') + 1);
    if (m == "acc") {
      acc = true;
    } else if (m.rfind("axis=", 0) == 0 && m.size() > 5 && m.size() < 8 &&
               std::all_of(m.begin() + 5, m.end(), ::isdigit)) {
      axis = std::stoi(m.substr(5));
    } else if (m.rfind("stride=", 0) == 0 && !stride) {
      if (!(stride = parse_pair(m.substr(7)))) return std::nullopt;
    } else if (m.rfind("pad=", 0) == 0 && !pad) {
      if (!(pad = parse_pair(m.substr(4)))) return std::nullopt;
    } else {
      return std::nullopt;
    }
  }
  if (word == "conv") {
    if (axis >= 0) return std::nullopt;
    Conv c{acc};
    if (stride) c.stride = *stride;
    if (pad) c.pad = *pad;
    return c;
  }
  if (stride || pad) return std::nullopt;
  if (word == "reducesum") {
    if (axis < 0) return std::nullopt;
    return ReduceSum{static_cast<std::uint8_t>(axis), acc};
  }
  if (axis >= 0) return std::nullopt;
  if (word == "matmul") return Matmul{acc};
  if (acc) return std::nullopt;
  if (word == "move") return Move{};
  if (word == "zero") return Zero{};
  for (UnaryOp u : kAllUnaryOps) {
    if (word == unary_op_name(u)) return Unary{u};
  }
  for (BinaryOp b : kAllBinaryOps) {
    if (word == binary_op_name(b)) return Binary{b};
  }
  return std::nullopt;
}

std::optional<Op> parse_op(const std::string& word) {
  if (word.rfind("compose[", 0) == 0 && word.back() == ']') {
    Compose c;
    const std::string inner = word.substr(8, word.size() - 9);
    int depth = 0;
    std::string part;
    for (char ch : inner + ",") {
      if (ch == '[') ++depth;
      if (ch == ']') --depth;
      if (ch == ',' && depth == 0) {
        part.erase(0, part.find_first_not_of(' '));
        part.erase(part.find_last_not_of(' ') + 1);
        auto stage = parse_primitive(part);
        if (!stage) return std::nullopt;
        c.stages.push_back(*stage);
        part.clear();
      } else {
        part += ch;
      }
    }
    return c;
  }
  auto p = parse_primitive(word);
  if (!p) return std::nullopt;
  return to_op(*p);
}

}  // namespace

Spec parse_spec(std::string_view text, const Target& target) {
  Parser p(text);
  if (p.size() == 0) user_error("empty spec text");
  Spec spec;
  const auto op = parse_op(p.at(0));
  if (!op) p.fail("unknown op (matmul, conv[stride=S,pad=P], move, zero, relu, add, mul, sub, max, reducesum[axis=N], "
           "compose[...])", 0);
  spec.op = *op;
  std::size_t i = 1;
  auto dtype_at = [&](std::size_t t) {
    auto d = parse_dtype(p.at(t));
    if (!d) p.fail("unknown dtype (f32, f16, bf16, i8, i32)", t);
    return *d;
  };
  auto shape_at = [&](std::size_t t) {
    auto s = parse_shape(p.at(t));
    if (!s) p.fail("bad shape (1 to 8 extents from 1 to 2147483647 joined by x, e.g. 128x64)", t);
    return *s;
  };
  if (i < p.size() && p.at(i) == "(") {
    ++i;
    bool output = false;
    while (true) {
      if (p.at(i) == "->") {
        if (output) p.fail("a second '->'", i);
        output = true;
        ++i;
        continue;
      }
      TensorSpec t;
      t.shape = shape_at(i++);
      t.dtype = dtype_at(i++);
      auto level = parse_level(p.at(i));
      if (!level) p.fail("unknown level (GL, L2, L1, VRF, RF)", i);
      t.level = *level;
      ++i;
      auto layout = parse_layout(p.at(i));
      if (!layout) p.fail("unknown layout (row, col, blk<dim>:<block>)", i);
      t.layout = *layout;
      ++i;
      while (p.at(i) != "," && p.at(i) != ")" && p.at(i) != "->") {
        const std::string& w = p.at(i);
        if (w == "unaligned") {
          t.aligned = false;
        } else if (w == "strided") {
          t.contiguous = false;
        } else if (w.size() > 8 && w.size() < 11 && w.starts_with("strided:") &&
                   std::all_of(w.begin() + 8, w.end(), ::isdigit)) {
          t.contiguous = false;
          t.run_dims = static_cast<std::uint8_t>(std::stoul(w.substr(8)));
        } else if (w == "shared") {
          t.shared = true;
        } else if (w.size() > 1 && w.size() < 8 && w[0] == 'v' && std::all_of(w.begin() + 1, w.end(), ::isdigit)) {
          t.vector_size = static_cast<std::uint32_t>(std::stoul(w.substr(1)));
        } else {
          p.fail("unknown tensor attribute (vN, unaligned, strided, strided:N, shared)", i);
        }
        ++i;
      }
      spec.operands.push_back(t);
      if (p.at(i) == ")") {
        if (!output) p.fail("missing '->' before the output", i);
        ++i;
        break;
      }
      if (p.at(i) == ",") {
        if (output) p.fail("only one output follows '->'", i);
        ++i;
      }
    }
  } else {
    // Short form: shapes, a dtype, optionally a level for every operand.
    std::vector<std::size_t> shape_tokens;
    while (i < p.size() && std::isdigit(static_cast<unsigned char>(p.at(i)[0]))) {
      shape_at(i);  // a token that starts like a shape must be one
      shape_tokens.push_back(i++);
    }
    if (shape_tokens.empty()) p.fail("expected shapes or '(' after the op", i);
    const Dtype dtype = dtype_at(i++);
    Level level = Level::GL;
    if (i < p.size() && parse_level(p.at(i))) level = *parse_level(p.at(i++));
    auto tensor = [&](Shape s) {
      TensorSpec t;
      t.shape = std::move(s);
      t.dtype = dtype;
      t.level = level;
      return t;
    };
    std::vector<Shape> inputs;
    if (std::holds_alternative<Matmul>(spec.op)) {
      const Shape s = shape_at(shape_tokens[0]);
      if (shape_tokens.size() != 1 || (s.size() != 3 && s.size() != 4)) {
        p.fail("matmul short form needs MxKxN (or BxMxKxN), got " + std::to_string(s.size()) + " extents",
               shape_tokens[0]);
      }
      const std::size_t b = s.size() - 3;
      Shape a(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(b)), bb = a;
      a.insert(a.end(), {s[b], s[b + 1]});
      bb.insert(bb.end(), {s[b + 1], s[b + 2]});
      inputs = {a, bb};
    } else if (std::holds_alternative<Zero>(spec.op)) {
      if (shape_tokens.size() != 1) p.fail("zero short form takes the output's shape", shape_tokens.back());
      spec.operands.push_back(tensor(shape_at(shape_tokens[0])));
    } else if (std::holds_alternative<Binary>(spec.op) && shape_tokens.size() == 1) {
      inputs = {shape_at(shape_tokens[0]), shape_at(shape_tokens[0])};
    } else {
      for (std::size_t t : shape_tokens) inputs.push_back(shape_at(t));
      if (inputs.size() != input_count(spec.op)) {
        p.fail(std::string(op_word(spec.op)) + " takes " + std::to_string(input_count(spec.op)) + " input shapes, got " +
                   std::to_string(inputs.size()),
               shape_tokens.back());
      }
    }
    if (!inputs.empty()) {
      Shape out;
      try {
        out = infer_output_shape(spec.op, inputs);
      } catch (const UserError& e) {
        p.fail(e.what(), shape_tokens.front());
      }
      for (Shape& s : inputs) spec.operands.push_back(tensor(std::move(s)));
      spec.operands.push_back(tensor(std::move(out)));
    }
  }
  if (i < p.size() && p.at(i) == "serial") {
    spec.serial_only = true;
    ++i;
  }
  if (i < p.size()) p.fail("unexpected text after the spec", i);
  if (spec.operands.size() != input_count(spec.op) + 1) {
    p.fail(std::string(op_word(spec.op)) + " takes " + std::to_string(input_count(spec.op)) + " inputs and an output, got " +
               std::to_string(spec.operands.size()) + " operands",
           0);
  }
  try {
    validate(spec, target);
  } catch (const UserError& e) {
    user_error(e.what(), " (in: ", text, ")");
  }
  return spec;
}

}  // namespace kriek
