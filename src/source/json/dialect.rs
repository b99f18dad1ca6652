//! How an item's attribute values are written, as a type the item readers are generic over: typed DynamoDB
//! JSON ([`Typed`], `{"pk":{"S":"a"}}`) or plain JSON ([`Plain`], `{"pk":"a"}`). The serde reader
//! ([`super::item::ItemSeed`]), its reading of an item whose values a key design extracts
//! ([`super::extract::read_item`]) and the hand-written fast path (`fast_json`'s `Cursor::item`, through its
//! half of the dialect, `fast_json::FastDialect`) are each written once over a [`Dialect`] and monomorphised:
//! each dialect's reading compiles to a loop of its own, as when each reader was written twice.

use serde::de::{Error as _, IgnoredAny, MapAccess};
use serde_json::value::RawValue;

use super::extract::{TypedValueSeed, plain_to_value};
use super::item::{AttrSeed, Tag, attr_leniently, plain_value};
use crate::model::keyexpr::Value;

/// How an item's attribute values are written: what the serde readers ask of each attribute's value (the
/// next value of the item's map).
pub trait Dialect: Copy + Default + Send + Sync + 'static {
    /// A key attribute's value: its tag, with its key text (for S, N and B) in `raw`.
    fn key_attr<'de, A: MapAccess<'de>>(
        map: &mut A,
        raw: &mut Vec<u8>,
    ) -> Result<Option<Tag>, A::Error>;

    /// An attribute's value on the first item, read to guess the key attributes: its tag and key text, `None`
    /// when it is not noted.
    fn guess_attr<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<(Tag, Vec<u8>)>, A::Error>;

    /// An attribute's value on a load that extracts values ([`super::extract::read_item`]): into `value` when
    /// the attribute is one to extract (with its name, for messages), its tag and key text into `key` when it
    /// is a key attribute or the key attributes are being guessed (`guessing`); skipped when neither.
    fn extracted_attr<'de, A: MapAccess<'de>>(
        map: &mut A,
        value: Option<(&str, &mut Option<Value>)>,
        key: Option<(&mut Option<Tag>, &mut Vec<u8>)>,
        guessing: bool,
    ) -> Result<(), A::Error>;
}

/// Typed DynamoDB JSON: every attribute value is an object of one type tag (`{"S":"a"}`, `{"N":"1"}`, …).
#[derive(Debug, Clone, Copy, Default)]
pub struct Typed;

/// Plain JSON items (`{"pk":"a","n":1}`, as DocumentClient, boto3's resource API and seed scripts write them),
/// values mapped to key types as the SDKs do: a string is `S`, a number is `N` (its text, compared by value
/// later), anything else a type no key can have. Its serde readers need a `serde_json` deserializer over a
/// slice (the values are read as borrowed [`RawValue`]s).
#[derive(Debug, Clone, Copy, Default)]
pub struct Plain;

impl Dialect for Typed {
    #[inline]
    fn key_attr<'de, A: MapAccess<'de>>(
        map: &mut A,
        raw: &mut Vec<u8>,
    ) -> Result<Option<Tag>, A::Error> {
        let mut tag = None;
        map.next_value_seed(AttrSeed { tag: &mut tag, raw })?;
        Ok(tag)
    }

    /// One that is not a typed value is noted as no key type (a key so written is then named by the size walk,
    /// which runs once the keys are known; any other only makes the size an estimate), as on later items.
    #[inline]
    fn guess_attr<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<(Tag, Vec<u8>)>, A::Error> {
        let value: Box<RawValue> = map.next_value()?;
        Ok(attr_leniently(&value))
    }

    #[inline]
    fn extracted_attr<'de, A: MapAccess<'de>>(
        map: &mut A,
        value: Option<(&str, &mut Option<Value>)>,
        key: Option<(&mut Option<Tag>, &mut Vec<u8>)>,
        guessing: bool,
    ) -> Result<(), A::Error> {
        match (value, key) {
            (Some((attr, out)), key) => {
                *out = Some(map.next_value_seed(TypedValueSeed { attr, key })?);
            }
            (None, Some((tag, raw))) if guessing => {
                // Guessing the keys: read as without extraction (`item::attr_leniently`).
                let value: Box<RawValue> = map.next_value()?;
                if let Some((t, r)) = attr_leniently(&value) {
                    *tag = Some(t);
                    *raw = r;
                }
            }
            (None, Some((tag, raw))) => map.next_value_seed(AttrSeed { tag, raw })?,
            (None, None) => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

impl Dialect for Plain {
    #[inline]
    fn key_attr<'de, A: MapAccess<'de>>(
        map: &mut A,
        raw: &mut Vec<u8>,
    ) -> Result<Option<Tag>, A::Error> {
        let value: &RawValue = map.next_value()?;
        plain_value(value, raw).map(Some).map_err(A::Error::custom)
    }

    #[inline]
    fn guess_attr<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<(Tag, Vec<u8>)>, A::Error> {
        let value: &RawValue = map.next_value()?;
        let mut text = Vec::new();
        let tag = plain_value(value, &mut text).map_err(A::Error::custom)?;
        Ok(Some((tag, text)))
    }

    #[inline]
    fn extracted_attr<'de, A: MapAccess<'de>>(
        map: &mut A,
        value: Option<(&str, &mut Option<Value>)>,
        key: Option<(&mut Option<Tag>, &mut Vec<u8>)>,
        _guessing: bool,
    ) -> Result<(), A::Error> {
        if value.is_none() && key.is_none() {
            map.next_value::<IgnoredAny>()?;
            return Ok(());
        }
        let raw: &RawValue = map.next_value()?;
        if let Some((attr, out)) = value {
            *out = Some(plain_to_value(raw.get(), attr).map_err(A::Error::custom)?);
        }
        if let Some((tag, text)) = key {
            *tag = Some(plain_value(raw, text).map_err(A::Error::custom)?);
        }
        Ok(())
    }
}
