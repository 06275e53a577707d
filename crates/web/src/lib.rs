//! kubelive-web (being built).
