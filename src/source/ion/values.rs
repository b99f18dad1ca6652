//! Ion values as [`Value`]s: the attributes a key design reads, built by the same [`Parser`] that reads items
//! through (`mod.rs`), with the same checks.

use super::{MAX_DEPTH, Parser};
use crate::model::keyexpr::Value;
use crate::source::json::item::Tag;

/// Building [`Value`]s: the attributes a design reads.
impl Parser<'_> {
    /// One value as a [`Value`]: strings and symbols are `S`, ints, decimals and floats `N`, blobs `B`,
    /// structs `M`, lists and s-expressions `L`; DynamoDB's set annotations (`$dynamodb_SS::[…]`) give the
    /// list of the members. `attr` names the attribute in messages.
    pub(super) fn tree(&mut self, depth: usize, attr: &str) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err(self.err("nesting deeper than 64 levels"));
        }
        self.ws()?;
        let text = |out: Vec<u8>, p: &Self| {
            String::from_utf8(out)
                .map(Value::S)
                .map_err(|_| p.err("a string is not UTF-8"))
        };
        match self.peek() {
            Some(b'"') => {
                let mut out = Vec::new();
                self.string(&mut out)?;
                text(out, self)
            }
            Some(b'\'') if self.s[self.i..].starts_with(b"'''") => {
                let mut out = Vec::new();
                self.string(&mut out)?;
                text(out, self)
            }
            Some(b'\'') => {
                let mut sym = Vec::new();
                self.quoted(b'\'', &mut sym)?;
                self.ws()?;
                if self.s[self.i..].starts_with(b"::") {
                    self.i += 2;
                    return self.tree(depth + 1, attr);
                }
                text(sym, self)
            }
            Some(b'{') if self.s.get(self.i + 1) == Some(&b'{') => self.lob_tree(attr),
            Some(b'{') => self.struct_tree(depth, attr),
            Some(open @ (b'[' | b'(')) => self.list_tree(open, depth, attr),
            Some(c) if c.is_ascii_digit() || c == b'-' || c == b'+' => {
                let start = self.i;
                let mut raw = Vec::new();
                match self.number(Some(&mut raw))?.0 {
                    Tag::Key(_) => Value::number(&String::from_utf8_lossy(&raw))
                        .map_err(|e| format!("attribute {attr:?}: {e}")),
                    Tag::Other(t) if t == "inf" => Err(format!(
                        "attribute {attr:?}: an infinite float is not a DynamoDB number"
                    )),
                    // A timestamp: its text.
                    Tag::Other(_) => Ok(Value::S(
                        String::from_utf8_lossy(&self.s[start..self.i]).into_owned(),
                    )),
                }
            }
            Some(c) if Self::is_ident_start(c) => self.word_tree(depth, attr),
            _ => Err(self.err("expected a value")),
        }
    }

    /// `{{ … }}`: a blob's bytes (a clob is no DynamoDB type).
    fn lob_tree(&mut self, attr: &str) -> Result<Value, String> {
        let mut raw = Vec::new();
        match self.lob(Some(&mut raw))?.0 {
            Tag::Key(_) => {
                use base64::Engine as _;
                base64::engine::general_purpose::STANDARD
                    .decode(&raw)
                    .map(Value::B)
                    .map_err(|_| format!("attribute {attr:?}: a blob is not valid base64"))
            }
            _ => Err(format!(
                "attribute {attr:?} holds a clob; expected a DynamoDB type (DynamoDB exports none)"
            )),
        }
    }

    fn struct_tree(&mut self, depth: usize, attr: &str) -> Result<Value, String> {
        self.i += 1;
        let mut map = std::collections::BTreeMap::new();
        self.members("expected ',' or '}'", |p, name| {
            let v = p.tree(depth + 1, attr)?;
            map.insert(name.into_owned(), v);
            Ok(())
        })?;
        Ok(Value::M(map))
    }

    fn list_tree(&mut self, open: u8, depth: usize, attr: &str) -> Result<Value, String> {
        let mut list = Vec::new();
        self.elements(open, |p| {
            list.push(p.tree(depth + 1, attr)?);
            Ok(())
        })?;
        Ok(Value::L(list))
    }

    /// `null`, `true`, `false`, a symbol (`S`), or an annotation before a value (the value).
    fn word_tree(&mut self, depth: usize, attr: &str) -> Result<Value, String> {
        let word = self.ident()?;
        match word {
            "null" => {
                self.null_type()?;
                return Ok(Value::Null);
            }
            "true" => return Ok(Value::Bool(true)),
            "false" => return Ok(Value::Bool(false)),
            "nan" => return Err(format!("attribute {attr:?}: nan is not a DynamoDB number")),
            _ => {}
        }
        self.ws()?;
        if self.s[self.i..].starts_with(b"::") {
            self.i += 2;
            return self.tree(depth + 1, attr);
        }
        Ok(Value::S(word.to_owned()))
    }
}
