//! The message helpers the rule sets share: a catalogue key with named arguments as a
//! language-neutral message (`tercio_i18n::msg`), for engines that build their arguments as
//! owned strings.

/// A message: the catalogue key `key` with named arguments (an argument starting with `@` is
/// itself a key, rendered in the viewer's language; a scenario's names are plain text, shown as
/// written).
pub fn m(key: &str, args: &[(&str, String)]) -> String {
    let a: Vec<(&str, &str)> = args.iter().map(|(k, v)| (*k, v.as_str())).collect();
    tercio_i18n::msg(key, &a)
}

/// A value the request gave (an id, a type, a flag), as a refusal quotes it: cut to at most
/// [`tercio_i18n::QUOTED_MOST`] characters ([`tercio_i18n::clip`]), and never read as a marker.
pub fn quoted(value: &str) -> String {
    tercio_i18n::plain(&tercio_i18n::clip(value)).into_owned()
}

/// A message without arguments.
pub fn k(key: &str) -> String {
    m(key, &[])
}
