//! The expression parser: characters to [`super::Part`]s, errors with the column they are at.

use super::value::is_bare;
use super::*;

// ---------------------------------------------------------------------------------------------------------
// Parsing

pub(super) struct Parser {
    chars: Vec<char>,
    i: usize,
}

impl Parser {
    pub(super) fn new(text: &str) -> Self {
        Self {
            chars: text.chars().collect(),
            i: 0,
        }
    }
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.i + ahead).copied()
    }

    fn column(&self) -> usize {
        self.i + 1
    }

    fn err(&self, kind: ExprErrorKind) -> ExprError {
        ExprError {
            column: self.column(),
            kind,
        }
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.i += 1;
        }
    }

    pub(super) fn expression(mut self) -> Result<Expr, ExprError> {
        if self.chars.is_empty() {
            return Err(self.err(ExprErrorKind::Empty));
        }
        let mut parts = Vec::new();
        let mut text = String::new();
        while let Some(c) = self.peek() {
            match (c, self.peek_at(1)) {
                ('{', Some('{')) | ('}', Some('}')) => {
                    text.push(c);
                    self.i += 2;
                }
                ('{', _) => {
                    if !text.is_empty() {
                        parts.push(Part::Text(std::mem::take(&mut text)));
                    }
                    parts.push(self.placeholder()?);
                }
                ('}', _) => return Err(self.err(ExprErrorKind::UnmatchedClose)),
                _ => {
                    text.push(c);
                    self.i += 1;
                }
            }
        }
        if !text.is_empty() {
            parts.push(Part::Text(text));
        }
        Ok(Expr { parts })
    }

    /// A placeholder, from its `{` to its `}`.
    fn placeholder(&mut self) -> Result<Part, ExprError> {
        let open = self.column();
        let unclosed = ExprError {
            column: open,
            kind: ExprErrorKind::Unclosed,
        };
        self.i += 1;
        self.skip_ws();
        let part = match self.peek() {
            None => return Err(unclosed),
            Some('}') => {
                return Err(ExprError {
                    column: open,
                    kind: ExprErrorKind::EmptyPlaceholder,
                });
            }
            Some(_) if self.is_random() => {
                self.i += "random".len();
                self.skip_ws();
                Part::Random(self.count(Counted::Random)?)
            }
            Some(_) => {
                let path = self.path()?;
                self.skip_ws();
                let format = if self.peek() == Some(':') {
                    self.i += 1;
                    self.skip_ws();
                    self.format()?
                } else {
                    Format::Text
                };
                Part::Attr { path, format }
            }
        };
        self.skip_ws();
        match self.peek() {
            Some('}') => {
                self.i += 1;
                Ok(part)
            }
            None => Err(unclosed),
            Some(found) => Err(self.err(ExprErrorKind::Unexpected {
                expected: match part {
                    Part::Attr {
                        format: Format::Text,
                        ..
                    } => "`.`, `:` or `}`",
                    _ => "`}`",
                },
                found,
            })),
        }
    }

    /// `random` followed by white space: the random suffix (`{random}` alone is an attribute).
    fn is_random(&self) -> bool {
        "random"
            .chars()
            .enumerate()
            .all(|(k, c)| self.peek_at(k) == Some(c))
            && self.peek_at(6).is_some_and(char::is_whitespace)
    }

    fn path(&mut self) -> Result<AttrPath, ExprError> {
        let mut segments = vec![self.segment()?];
        while self.peek() == Some('.') {
            self.i += 1;
            segments.push(self.segment()?);
        }
        Ok(AttrPath(segments))
    }

    fn segment(&mut self) -> Result<String, ExprError> {
        if self.peek() == Some('`') {
            let quote = self.column();
            self.i += 1;
            let mut name = String::new();
            loop {
                match (self.peek(), self.peek_at(1)) {
                    (None, _) => {
                        return Err(ExprError {
                            column: quote,
                            kind: ExprErrorKind::UnclosedQuote,
                        });
                    }
                    (Some('`'), Some('`')) => {
                        name.push('`');
                        self.i += 2;
                    }
                    (Some('`'), _) => {
                        self.i += 1;
                        break;
                    }
                    (Some(c), _) => {
                        name.push(c);
                        self.i += 1;
                    }
                }
            }
            if name.is_empty() {
                return Err(ExprError {
                    column: quote,
                    kind: ExprErrorKind::MissingName("``".to_owned()),
                });
            }
            return Ok(name);
        }
        let start = self.i;
        while self.peek().is_some_and(is_bare) {
            self.i += 1;
        }
        if self.i == start {
            let found = self
                .peek()
                .map_or_else(|| "the end".to_owned(), |c| format!("`{c}`"));
            return Err(self.err(ExprErrorKind::MissingName(found)));
        }
        Ok(self.chars[start..self.i].iter().collect())
    }

    /// The format after `:` (white space after the colon already skipped).
    fn format(&mut self) -> Result<Format, ExprError> {
        let at = self.column();
        let start = self.i;
        while self
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-')
        {
            self.i += 1;
        }
        let word: String = self.chars[start..self.i].iter().collect();
        let format = match word.to_ascii_lowercase().as_str() {
            "" => {
                return Err(ExprError {
                    column: at,
                    kind: ExprErrorKind::MissingFormat,
                });
            }
            "day" => Format::Day,
            "hour" => Format::Hour,
            "month" => Format::Month,
            "year" => Format::Year,
            "first" => {
                self.skip_ws();
                Format::First(self.count(Counted::First)?)
            }
            "hash" => {
                self.skip_ws();
                Format::Hash(self.count(Counted::Hash)?)
            }
            _ => {
                return Err(ExprError {
                    // The column of the `:`, which the message shows.
                    column: self.chars[..start]
                        .iter()
                        .rposition(|&c| c == ':')
                        .map_or(at, |p| p + 1),
                    kind: ExprErrorKind::UnknownFormat(word),
                });
            }
        };
        Ok(format)
    }

    /// The N of `:first N`, `:hash N` or `{random N}`: 1 to the placeholder's maximum.
    fn count(&mut self, what: Counted) -> Result<u32, ExprError> {
        let at = self.column();
        let start = self.i;
        while self
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '+' | '_'))
        {
            self.i += 1;
        }
        let word: String = self.chars[start..self.i].iter().collect();
        let fail = |kind| ExprError { column: at, kind };
        if word.is_empty() {
            return Err(fail(ExprErrorKind::MissingCount(what)));
        }
        if !word.chars().all(|c| c.is_ascii_digit()) {
            return Err(fail(ExprErrorKind::NotACount { what, found: word }));
        }
        match word.parse::<u32>() {
            Ok(0) => Err(fail(ExprErrorKind::ZeroCount(what))),
            Ok(n) if n <= what.max() => Ok(n),
            _ => Err(fail(ExprErrorKind::CountTooLarge(what))),
        }
    }
}
