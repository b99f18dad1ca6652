//! The JSON readers the JSON formats share: the item reader that takes the key attributes out of one item
//! ([`item`]), its hand-written fast path ([`fast_json`]), both generic over how the item's values are written
//! ([`dialect`]: typed DynamoDB JSON or plain JSON), the attribute values a key design extracts besides
//! the key (`extract`), and the streaming splitter that cuts whole documents into items ([`json_stream`])
//! with the loader of those documents ([`json_doc`]), the reader of each of their items ([`item_reader`]) and
//! the loader of a large one on every core ([`doc_split`]).

mod blocks;
pub mod dialect;
pub mod doc_split;
pub(crate) mod extract;
/// Public only for the differential fuzz target (`fuzz/`), which checks this fast path against the serde
/// path on every input it accepts; not part of the API.
#[doc(hidden)]
pub mod fast_json;
pub mod item;
pub mod item_reader;
pub mod json_doc;
pub mod json_stream;
pub mod size;
pub mod ttl;
