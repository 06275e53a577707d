//! kubelive-sim (being built).
