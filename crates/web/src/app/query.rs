//! The filter box: free text, label selector terms and `field:` terms in one line.
//!
//! ```text
//! web tier=backend,env in (a,b) !canary field:status.phase=Running
//! ```
//!
//! * A word with `=`, `!=`, `==`, `,`, parentheses, `key<n>`/`key>n`, a leading `!`,
//!   or `key in (...)` / `key notin (...)` is a **label selector** term (kubectl's
//!   `-l` syntax); `label:canary` says "has the label `canary`" (a bare word is free
//!   text). Whitespace around operators, commas and inside parentheses belongs to
//!   the term, as kubectl allows.
//! * `field:path=value` (also `!=`, `==`, several joined by `,`) is a **field
//!   selector** term (`--field-selector`).
//! * Anything else is **free text**: every word must appear in one of the row's
//!   shown cells (the browser filters; the server is not asked).
//!
//! Label terms are joined with `,` into one `labelSelector`, field terms into one
//! `fieldSelector`; both are checked here as the apiserver's parsers would before
//! anything is sent (`k8s.io/apimachinery/pkg/labels/selector.go`, `Parse`;
//! `.../fields/selector.go`, `ParseSelector`).

use std::fmt;

/// What the box asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query {
    /// `labelSelector`, as typed (terms joined by `,`); empty: none.
    pub label: String,
    /// `fieldSelector`; empty: none.
    pub field: String,
    /// Free-text words, filtered in the browser.
    pub words: Vec<String>,
}

/// A selector the server would reject, said the way a user can fix it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryError {
    /// `label` or `field`.
    pub which: &'static str,
    pub selector: String,
    pub why: String,
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid {} selector {:?}: {}",
            self.which, self.selector, self.why
        )
    }
}

impl Query {
    /// Splits the box into selectors and free text, and checks the selectors.
    pub fn parse(text: &str) -> Result<Query, QueryError> {
        let q = Query::split(text);
        q.check()?;
        Ok(q)
    }

    /// Splits without checking (for filtering as the user types: the free words
    /// apply at once, the selectors only once they are sent).
    pub fn split(text: &str) -> Query {
        let mut label: Vec<&str> = Vec::new();
        let mut field: Vec<&str> = Vec::new();
        let mut words = Vec::new();
        for chunk in chunks(text) {
            if let Some(rest) = chunk.strip_prefix("field:") {
                // Field paths and values hold no spaces: `a=b, c=d` means `a=b,c=d`.
                field.extend(rest.split(',').map(str::trim).filter(|t| !t.is_empty()));
            } else if let Some(rest) = chunk.strip_prefix("label:") {
                if !rest.is_empty() {
                    label.push(rest);
                }
            } else if is_label_term(chunk) {
                label.push(chunk);
            } else {
                words.push(chunk.to_string());
            }
        }
        Query {
            label: label.join(","),
            field: field.join(","),
            words,
        }
    }

    /// Both selectors as the apiserver would parse them.
    pub fn check(&self) -> Result<(), QueryError> {
        check_label_selector(&self.label).map_err(|why| QueryError {
            which: "label",
            selector: self.label.clone(),
            why,
        })?;
        check_field_selector(&self.field).map_err(|why| QueryError {
            which: "field",
            selector: self.field.clone(),
            why,
        })
    }

    pub fn has_selectors(&self) -> bool {
        !self.label.is_empty() || !self.field.is_empty()
    }

    /// The box text that parses back to this query.
    pub fn to_text(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if !self.label.is_empty() {
            let whole = chunks(&self.label);
            if whole.len() == 1 && is_label_term(whole[0]) {
                parts.push(self.label.clone());
            } else {
                parts.push(format!("label:{}", self.label));
            }
        }
        if !self.field.is_empty() {
            parts.push(format!("field:{}", self.field));
        }
        parts.extend(self.words.iter().cloned());
        parts.join(" ")
    }
}

/// Label selector operator characters (kubectl's lexer's special symbols).
fn is_symbol(c: char) -> bool {
    matches!(c, '=' | '!' | '(' | ')' | ',' | '<' | '>')
}

/// The box split at whitespace, except where whitespace is part of a selector term:
/// inside parentheses, around operators and commas, and in `key in (...)`.
fn chunks(text: &str) -> Vec<&str> {
    // Words: maximal runs of non-whitespace, whitespace inside parentheses kept.
    let mut words: Vec<(usize, usize)> = Vec::new();
    let mut depth = 0i32;
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() && depth <= 0 {
            if let Some(s) = start.take() {
                words.push((s, i));
            }
            continue;
        }
        if start.is_none() {
            start = Some(i);
        }
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
    }
    if let Some(s) = start {
        words.push((s, text.len()));
    }
    // Joins: `a =b`, `a= b`, `a ,b`, `a, b`, `key in (x)`, `key notin (x)`.
    let word = |&(s, e): &(usize, usize)| &text[s..e];
    let joins = |j: usize| -> bool {
        let (cur, nxt) = (word(&words[j]), word(&words[j + 1]));
        if nxt.starts_with("field:") || nxt.starts_with("label:") {
            return false;
        }
        let set_op = matches!(nxt, "in" | "notin")
            && words.get(j + 2).is_some_and(|w| word(w).starts_with('('));
        // `key> 3` (but `<none>` is a word of its own).
        let compares = cur.len() > 1
            && cur.ends_with(['<', '>'])
            && !cur[..cur.len() - 1].contains(['<', '>']);
        cur.ends_with([',', '=', '!', '('])
            || compares
            || nxt.starts_with([',', '=', ')'])
            || nxt.starts_with("!=")
            || nxt.starts_with("in(")
            || nxt.starts_with("notin(")
            || set_op
            || (matches!(cur, "in" | "notin") && nxt.starts_with('('))
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let mut j = i;
        while j + 1 < words.len() && joins(j) {
            j += 1;
        }
        out.push(&text[words[i].0..words[j].1]);
        i = j + 1;
    }
    out
}

/// Whether a chunk is meant as a label selector rather than free text.
fn is_label_term(chunk: &str) -> bool {
    if chunk.starts_with('!') || chunk.contains(['=', '(', ')', ',']) {
        return true;
    }
    // `replicas>3`, `tier<2`: a key, a comparison, an integer. (`<none>` is text.)
    if let Some(i) = chunk.find(['<', '>']) {
        let (key, value) = (&chunk[..i], &chunk[i + 1..]);
        let value = value.strip_prefix('-').unwrap_or(value);
        return !key.is_empty()
            && !key.contains(['<', '>'])
            && !value.is_empty()
            && value.bytes().all(|b| b.is_ascii_digit());
    }
    false
}

// ---- label selectors, as `labels.Parse` reads them ----

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Ident(String),
    Not,
    Eq,
    DoubleEq,
    NotEq,
    Gt,
    Lt,
    In,
    NotIn,
    Open,
    Close,
    Comma,
    End,
}

impl Token {
    fn text(&self) -> String {
        match self {
            Token::Ident(s) => s.clone(),
            Token::Not => "!".into(),
            Token::Eq => "=".into(),
            Token::DoubleEq => "==".into(),
            Token::NotEq => "!=".into(),
            Token::Gt => ">".into(),
            Token::Lt => "<".into(),
            Token::In => "in".into(),
            Token::NotIn => "notin".into(),
            Token::Open => "(".into(),
            Token::Close => ")".into(),
            Token::Comma => ",".into(),
            Token::End => "".into(),
        }
    }

    /// In a value position `in` and `notin` are plain words (`x in (in)`).
    fn in_value(self) -> Token {
        match self {
            Token::In => Token::Ident("in".into()),
            Token::NotIn => Token::Ident("notin".into()),
            t => t,
        }
    }
}

fn symbol_token(s: &str) -> Option<Token> {
    Some(match s {
        "!" => Token::Not,
        "=" => Token::Eq,
        "==" => Token::DoubleEq,
        "!=" => Token::NotEq,
        ">" => Token::Gt,
        "<" => Token::Lt,
        "(" => Token::Open,
        ")" => Token::Close,
        "," => Token::Comma,
        _ => return None,
    })
}

fn lex(s: &str) -> Result<Vec<Token>, String> {
    let b: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if matches!(c, ' ' | '\t' | '\r' | '\n') {
            i += 1;
        } else if is_symbol(c) {
            // The longest run of symbols that is an operator, as the lexer does.
            let mut best: Option<(Token, usize)> = None;
            let mut j = i;
            let mut buf = String::new();
            while j < b.len() && is_symbol(b[j]) {
                buf.push(b[j]);
                match symbol_token(&buf) {
                    Some(t) => best = Some((t, j + 1)),
                    None if best.is_some() => break,
                    None => {}
                }
                j += 1;
            }
            match best {
                Some((t, end)) => {
                    out.push(t);
                    i = end;
                }
                None => return Err(format!("error expected: keyword found '{buf}'")),
            }
        } else {
            let mut word = String::new();
            while i < b.len() && !is_symbol(b[i]) && !matches!(b[i], ' ' | '\t' | '\r' | '\n') {
                word.push(b[i]);
                i += 1;
            }
            out.push(match word.as_str() {
                "in" => Token::In,
                "notin" => Token::NotIn,
                _ => Token::Ident(word),
            });
        }
    }
    out.push(Token::End);
    Ok(out)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Token {
        self.tokens[self.at.min(self.tokens.len() - 1)].clone()
    }

    fn next(&mut self) -> Token {
        let t = self.peek();
        self.at += 1;
        t
    }
}

/// Checks a label selector as the apiserver parses it (`labels.Parse`): the grammar,
/// qualified-name keys, label values, one value for `=`/`==`/`!=`, an integer for
/// `<`/`>`.
pub fn check_label_selector(s: &str) -> Result<(), String> {
    let mut p = Parser {
        tokens: lex(s)?,
        at: 0,
    };
    loop {
        match p.peek().in_value() {
            Token::End => return Ok(()),
            Token::Ident(_) | Token::Not => {
                requirement(&mut p).map_err(|e| format!("unable to parse requirement: {e}"))?;
                match p.next().in_value() {
                    Token::End => return Ok(()),
                    Token::Comma => match p.peek().in_value() {
                        Token::Ident(_) | Token::Not => {}
                        t => {
                            return Err(format!(
                                "found '{}', expected: identifier after ','",
                                t.text()
                            ))
                        }
                    },
                    t => {
                        return Err(format!(
                            "found '{}', expected: ',' or 'end of string'",
                            t.text()
                        ))
                    }
                }
            }
            t => {
                return Err(format!(
                    "found '{}', expected: !, identifier, or 'end of string'",
                    t.text()
                ))
            }
        }
    }
}

fn requirement(p: &mut Parser) -> Result<(), String> {
    let mut tok = p.next().in_value();
    let negated = tok == Token::Not;
    if negated {
        tok = p.next().in_value();
    }
    let Token::Ident(key) = tok else {
        return Err(format!("found '{}', expected: identifier", tok.text()));
    };
    check_label_key(&key)?;
    if matches!(p.peek().in_value(), Token::End | Token::Comma) {
        return Ok(()); // exists / does not exist
    }
    if negated {
        // `!key` takes no operator: kubectl reads one and fails on it.
        return Err(format!(
            "found '{}', expected: ',' or 'end of string'",
            p.peek().text()
        ));
    }
    let op = p.next();
    let values = match op {
        Token::In | Token::NotIn => set_values(p)?,
        Token::Eq | Token::DoubleEq | Token::NotEq | Token::Gt | Token::Lt => {
            match p.peek().in_value() {
                Token::End | Token::Comma => vec![String::new()],
                _ => match p.next().in_value() {
                    Token::Ident(v) => vec![v],
                    t => return Err(format!("found '{}', expected: identifier", t.text())),
                },
            }
        }
        t => {
            return Err(format!(
                "found '{}', expected: in, notin, =, ==, !=, gt, lt",
                t.text()
            ))
        }
    };
    if matches!(op, Token::Gt | Token::Lt) && values.iter().any(|v| v.parse::<i64>().is_err()) {
        return Err(format!(
            "{key}: for 'Gt', 'Lt' operators, the value must be an integer"
        ));
    }
    for v in &values {
        check_label_value(v)
            .map_err(|why| format!("values[{key}]: Invalid value: {v:?}: {why}"))?;
    }
    Ok(())
}

/// `(a,b)`, `()`, `(a,,b)`: empty values are allowed.
fn set_values(p: &mut Parser) -> Result<Vec<String>, String> {
    let t = p.next().in_value();
    if t != Token::Open {
        return Err(format!("found '{}' expected: '('", t.text()));
    }
    let mut values = Vec::new();
    match p.peek().in_value() {
        Token::Close => {
            p.next();
            return Ok(vec![String::new()]);
        }
        Token::Ident(_) | Token::Comma => {}
        t => {
            return Err(format!(
                "found '{}', expected: ',', ')' or identifier",
                t.text()
            ))
        }
    }
    loop {
        match p.next().in_value() {
            Token::Ident(v) => {
                values.push(v);
                match p.peek().in_value() {
                    Token::Comma => continue,
                    Token::Close => break,
                    t => return Err(format!("found '{}', expected: ',' or ')'", t.text())),
                }
            }
            Token::Comma => {
                values.push(String::new());
                if p.peek().in_value() == Token::Close {
                    break;
                }
            }
            t => {
                return Err(format!(
                    "found '{}', expected: ',', or identifier",
                    t.text()
                ))
            }
        }
    }
    match p.next() {
        Token::Close => Ok(values),
        t => Err(format!("found '{}', expected: ')'", t.text())),
    }
}

/// `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?`, at most 63 characters.
fn is_label_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// A DNS-1123 subdomain: lowercase labels joined by dots, at most 253 characters.
pub fn is_dns_subdomain(s: &str) -> bool {
    !s.is_empty() && s.len() <= 253 && s.split('.').all(is_dns_label_part)
}

fn is_dns_label_part(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_lowercase() | b[0].is_ascii_digit()
        && (b[b.len() - 1].is_ascii_lowercase() || b[b.len() - 1].is_ascii_digit())
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
}

/// A DNS-1123 label (a namespace name): at most 63 characters.
pub fn is_dns_label(s: &str) -> bool {
    s.len() <= 63 && is_dns_label_part(s)
}

/// A label key: `[prefix/]name`, the prefix a DNS subdomain.
fn check_label_key(k: &str) -> Result<(), String> {
    let (prefix, name) = match k.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, k),
    };
    if let Some(p) = prefix {
        if p.is_empty() {
            return Err(format!("key {k:?}: prefix part must be non-empty"));
        }
        if !is_dns_subdomain(p) {
            return Err(format!(
                "key {k:?}: prefix part must be a lowercase DNS subdomain (e.g. example.com)"
            ));
        }
    }
    if !is_label_name(name) {
        return Err(format!(
            "key {k:?}: name part must be 63 characters or less, start and end with a letter \
             or digit, and contain only letters, digits, '-', '_' or '.'"
        ));
    }
    Ok(())
}

fn check_label_value(v: &str) -> Result<(), String> {
    if v.is_empty() || is_label_name(v) {
        Ok(())
    } else {
        Err(
            "a label value must be empty or 63 characters or less, start and end with a \
             letter or digit, and contain only letters, digits, '-', '_' or '.'"
                .into(),
        )
    }
}

// ---- field selectors, as `fields.ParseSelector` reads them ----

/// Checks a field selector: comma-separated `path=value`, `path==value` or
/// `path!=value` terms (empty terms are skipped). Which fields a resource supports
/// only the server knows (it answers 400 for others).
pub fn check_field_selector(s: &str) -> Result<(), String> {
    for part in s.split(',').filter(|p| !p.is_empty()) {
        let two = |op: &str| part.split(op).count() == 2;
        if !(two("!=") || two("==") || two("=")) {
            return Err(format!(
                "invalid selector: '{s}'; can't understand '{part}'"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(label: &str, field: &str, words: &[&str]) -> Query {
        Query {
            label: label.into(),
            field: field.into(),
            words: words.iter().map(|w| w.to_string()).collect(),
        }
    }

    #[test]
    fn splits_free_text_from_selector_terms() {
        assert_eq!(Query::parse("").unwrap(), Query::default());
        assert_eq!(
            Query::parse("  web  db ").unwrap(),
            q("", "", &["web", "db"])
        );
        assert_eq!(
            Query::parse("app=web,tier!=db").unwrap(),
            q("app=web,tier!=db", "", &[])
        );
        assert_eq!(
            Query::parse("web app==web !canary").unwrap(),
            q("app==web,!canary", "", &["web"])
        );
        // Whitespace belongs to the term around operators, commas and parentheses.
        assert_eq!(
            Query::parse("env in (a, b) x").unwrap(),
            q("env in (a, b)", "", &["x"])
        );
        assert_eq!(
            Query::parse("env notin (c),tier = db , x y").unwrap(),
            q("env notin (c),tier = db , x", "", &["y"])
        );
        assert_eq!(
            Query::parse("app in (a) env notin (b)").unwrap(),
            q("app in (a),env notin (b)", "", &[])
        );
        // A bare word is text; `label:` makes it an existence test.
        assert_eq!(Query::parse("canary").unwrap(), q("", "", &["canary"]));
        assert_eq!(Query::parse("label:canary").unwrap(), q("canary", "", &[]));
        assert_eq!(
            Query::parse("app=web,canary").unwrap(),
            q("app=web,canary", "", &[])
        );
        // Field terms.
        assert_eq!(
            Query::parse("field:status.phase=Running web field:spec.nodeName!=node-3").unwrap(),
            q("", "status.phase=Running,spec.nodeName!=node-3", &["web"])
        );
        assert_eq!(
            Query::parse("field:status.phase=Running, spec.nodeName=n1").unwrap(),
            q("", "status.phase=Running,spec.nodeName=n1", &[])
        );
        // `<none>` (an empty node cell) and "log in" are text; `replicas>3` is a label term.
        assert_eq!(
            Query::parse("<none> log in").unwrap(),
            q("", "", &["<none>", "log", "in"])
        );
        assert_eq!(
            Query::parse("replicas>3").unwrap(),
            q("replicas>3", "", &[])
        );
    }

    #[test]
    fn label_selectors_are_checked_as_kubectl_does() {
        for ok in [
            "app=web",
            "app==web",
            "app!=web",
            "app",
            "!app",
            "app=",
            "env in (a,b)",
            "env notin (c)",
            "x in (foo,,baz),y,z notin ()",
            "x in (in)",
            "example.com/app=web",
            "replicas>3",
            "a = b , c != d",
            "app.kubernetes.io/name in (web, api)",
        ] {
            assert_eq!(check_label_selector(ok), Ok(()), "{ok}");
        }
        for bad in [
            "app in (a",
            "app in a",
            "a b",
            "app=,",
            ",app",
            "app=web,",
            "!app=web",
            "app=web=x",
            "Bad_Key!",
            "-app=x",
            "app=-x",
            "app=a b",
            "replicas>three",
            "n<-2",
            "Example.com/app=x",
            "/app=x",
            "app=(x)",
        ] {
            assert!(check_label_selector(bad).is_err(), "{bad} must be rejected");
        }
        let long = "a".repeat(64);
        assert!(check_label_selector(&long).is_err());
        assert!(check_label_selector(&format!("k={long}")).is_err());
        let e = Query::parse("app in (a").unwrap_err();
        assert_eq!(e.which, "label");
        assert!(e.to_string().contains("app in (a"), "{e}");
    }

    #[test]
    fn field_selectors_are_checked_as_the_apiserver_does() {
        for ok in [
            "status.phase=Running",
            "status.phase==Running,spec.nodeName!=n1",
            "metadata.name=x,",
            "involvedObject.uid=1234-5678",
            "spec.nodeName=",
        ] {
            assert_eq!(check_field_selector(ok), Ok(()), "{ok}");
        }
        for bad in ["status.phase", "a=b=c", "a!=b!=c", "a==b==c"] {
            assert!(check_field_selector(bad).is_err(), "{bad}");
        }
        let e = Query::parse("field:status.phase").unwrap_err();
        assert_eq!(e.which, "field");
        assert!(e.why.contains("can't understand 'status.phase'"), "{e}");
    }

    #[test]
    fn the_box_text_round_trips() {
        for query in [
            q("", "", &[]),
            q("app=web,tier!=db", "", &[]),
            q("canary", "", &["web"]),
            q("env in (a, b)", "status.phase=Running", &["x", "y"]),
            q("!canary,app", "metadata.name=a", &[]),
            q("", "spec.nodeName=node-3", &["<none>"]),
        ] {
            let text = query.to_text();
            assert_eq!(Query::parse(&text).unwrap(), query, "{text:?}");
        }
        assert_eq!(q("canary", "", &["web"]).to_text(), "label:canary web");
    }

    #[test]
    fn names_are_dns_labels() {
        assert!(is_dns_label("team-a"));
        assert!(is_dns_label("a1"));
        for bad in [
            "",
            "Team",
            "-a",
            "a-",
            "a.b",
            "../x",
            "a/b",
            &"a".repeat(64),
        ] {
            assert!(!is_dns_label(bad), "{bad}");
        }
        assert!(is_dns_subdomain("kubelive.dev"));
        assert!(!is_dns_subdomain("kubelive..dev"));
    }
}
