//! The built-in examples, one module per kind: the teaching key sets ([`keys`]: [`keys::KeyExample`], each
//! one hot-partition story as pasteable keys), the key-design examples with whole items ([`design`]) and the
//! scenarios over time ([`time`]: scenario files of [`crate::model::sim_file`], built in).

pub mod design;
pub mod keys;
pub mod time;
