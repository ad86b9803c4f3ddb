//! A lexer of raw PDF bytes that counts values and nesting without building any object.

#[derive(Debug, PartialEq)]
pub(super) enum Tok {
    Name(Vec<u8>),
    Word(Vec<u8>),
    Open,
    Close,
    Other,
}

/// The tokens of `bytes` with the nesting depth each starts at (after an opening bracket
/// is counted). Names are kept raw (`#xx` escapes are not decoded).
pub(super) fn tokens(bytes: &[u8]) -> Vec<(Tok, u32)> {
    let mut lexer = Lexer::default();
    let mut out: Vec<(Tok, u32)> = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().chain(b" ").enumerate() {
        let depth_before = lexer.depth;
        let state_before = lexer.state;
        let step = lexer.push(b);
        if state_before == State::Name && (lexer.state != State::Name || step.started) {
            out.push((Tok::Name(bytes[start + 1..i].to_vec()), depth_before));
        }
        if step.word_ended {
            out.push((Tok::Word(lexer.word().to_vec()), depth_before));
        }
        if lexer.depth < depth_before {
            out.push((Tok::Close, lexer.depth));
        }
        if step.started {
            start = i;
            if step.opened {
                out.push((Tok::Open, lexer.depth));
            } else if lexer.state != State::Name && lexer.state != State::Word {
                out.push((Tok::Other, lexer.depth));
            }
        }
    }
    out
}

/// A PDF lexer fed one byte at a time (so inflated data can be lexed as it comes out),
/// reporting where values start and how deep arrays and dictionaries nest.
#[derive(Debug, Default)]
pub(super) struct Lexer {
    pub(super) state: State,
    pub(super) depth: u32,
    pub(super) word: [u8; 16],
    pub(super) word_len: usize,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    #[default]
    Space,
    Comment,
    Name,
    Word,
    Literal {
        open: u32,
        escaped: bool,
    },
    Hex,
    /// After one `<`.
    Lt,
    /// After one `>` outside a hex string.
    Gt,
}

/// What one byte did.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Step {
    /// A value (or keyword) started.
    pub(super) started: bool,
    /// An array or dictionary opened (`depth` is its depth).
    pub(super) opened: bool,
    /// A dictionary closed.
    pub(super) closed_dict: bool,
    /// A regular word (number or keyword) ended; see [`Lexer::word`].
    pub(super) word_ended: bool,
}

pub(in crate::signing::pdf) fn is_space(b: u8) -> bool {
    matches!(b, b'\0' | b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

pub(in crate::signing::pdf) fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

impl Lexer {
    /// The word that just ended (its first 16 bytes).
    pub(super) fn word(&self) -> &[u8] {
        &self.word[..self.word_len]
    }

    pub(super) fn push(&mut self, b: u8) -> Step {
        let mut step = Step::default();
        match self.state {
            State::Comment => {
                if b == b'\r' || b == b'\n' {
                    self.state = State::Space;
                }
            }
            State::Literal { open, escaped } => {
                self.state = match (b, escaped) {
                    (_, true) => State::Literal {
                        open,
                        escaped: false,
                    },
                    (b'\\', false) => State::Literal {
                        open,
                        escaped: true,
                    },
                    (b'(', false) => State::Literal {
                        open: open + 1,
                        escaped: false,
                    },
                    (b')', false) if open == 1 => State::Space,
                    (b')', false) => State::Literal {
                        open: open - 1,
                        escaped: false,
                    },
                    _ => State::Literal { open, escaped },
                };
            }
            State::Hex => {
                if b == b'>' {
                    self.state = State::Space;
                }
            }
            State::Lt => {
                if b == b'<' {
                    self.state = State::Space;
                    self.depth += 1;
                    step.started = true;
                    step.opened = true;
                } else {
                    // A hex string; its start was not counted yet.
                    step.started = true;
                    self.state = if b == b'>' { State::Space } else { State::Hex };
                }
            }
            State::Gt => {
                self.state = State::Space;
                if b == b'>' {
                    self.depth = self.depth.saturating_sub(1);
                    step.closed_dict = true;
                } else {
                    self.space(b, &mut step);
                }
            }
            State::Name => {
                if is_space(b) || is_delimiter(b) {
                    self.state = State::Space;
                    self.space(b, &mut step);
                }
            }
            State::Word => {
                if is_space(b) || is_delimiter(b) {
                    step.word_ended = true;
                    self.state = State::Space;
                    self.space(b, &mut step);
                } else if self.word_len < self.word.len() {
                    self.word[self.word_len] = b;
                    self.word_len += 1;
                } else {
                    // Longer than any keyword that matters: never matches one.
                    self.word[0] = 0;
                }
            }
            State::Space => self.space(b, &mut step),
        }
        step
    }

    /// `b` read between tokens.
    pub(super) fn space(&mut self, b: u8, step: &mut Step) {
        match b {
            _ if is_space(b) => {}
            b'%' => self.state = State::Comment,
            b'(' => {
                step.started = true;
                self.state = State::Literal {
                    open: 1,
                    escaped: false,
                };
            }
            b'<' => self.state = State::Lt,
            b'>' => self.state = State::Gt,
            b'[' => {
                step.started = true;
                step.opened = true;
                self.depth += 1;
            }
            b']' => self.depth = self.depth.saturating_sub(1),
            b'/' => {
                step.started = true;
                self.state = State::Name;
            }
            b')' | b'{' | b'}' => {}
            _ => {
                step.started = true;
                self.state = State::Word;
                self.word[0] = b;
                self.word_len = 1;
            }
        }
    }
}
