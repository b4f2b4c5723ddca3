//! The generic value tree a Thrift message decodes into, and Thrift's type codes.

use bytes::Bytes;

/// Thrift's type codes (the binary protocol's numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TType {
    Bool,
    Byte,
    Double,
    I16,
    I32,
    I64,
    Binary,
    Struct,
    Map,
    Set,
    List,
}

impl TType {
    /// The binary protocol's code.
    pub fn code(self) -> u8 {
        match self {
            Self::Bool => 2,
            Self::Byte => 3,
            Self::Double => 4,
            Self::I16 => 6,
            Self::I32 => 8,
            Self::I64 => 10,
            Self::Binary => 11,
            Self::Struct => 12,
            Self::Map => 13,
            Self::Set => 14,
            Self::List => 15,
        }
    }

    /// The type of a binary protocol code; `None` for STOP (0) and unknown codes.
    pub fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            2 => Self::Bool,
            3 => Self::Byte,
            4 => Self::Double,
            6 => Self::I16,
            8 => Self::I32,
            10 => Self::I64,
            11 => Self::Binary,
            12 => Self::Struct,
            13 => Self::Map,
            14 => Self::Set,
            15 => Self::List,
            _ => return None,
        })
    }
}

/// The kind of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageType {
    Call,
    Reply,
    Exception,
    Oneway,
}

impl MessageType {
    pub fn code(self) -> u8 {
        match self {
            Self::Call => 1,
            Self::Reply => 2,
            Self::Exception => 3,
            Self::Oneway => 4,
        }
    }

    pub fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            1 => Self::Call,
            2 => Self::Reply,
            3 => Self::Exception,
            4 => Self::Oneway,
            _ => return None,
        })
    }
}

/// Any Thrift value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Bool(bool),
    Byte(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    Double(f64),
    Binary(Bytes),
    Struct(Struct),
    List(TType, Vec<Value>),
    Set(TType, Vec<Value>),
    Map(TType, TType, Vec<(Value, Value)>),
}

impl Value {
    pub fn ttype(&self) -> TType {
        match self {
            Self::Bool(_) => TType::Bool,
            Self::Byte(_) => TType::Byte,
            Self::I16(_) => TType::I16,
            Self::I32(_) => TType::I32,
            Self::I64(_) => TType::I64,
            Self::Double(_) => TType::Double,
            Self::Binary(_) => TType::Binary,
            Self::Struct(_) => TType::Struct,
            Self::List(..) => TType::List,
            Self::Set(..) => TType::Set,
            Self::Map(..) => TType::Map,
        }
    }

    pub fn binary(value: impl Into<Bytes>) -> Self {
        Self::Binary(value.into())
    }

    /// A list of binaries.
    pub fn binary_list(items: impl IntoIterator<Item = Bytes>) -> Self {
        Self::List(
            TType::Binary,
            items.into_iter().map(Value::Binary).collect(),
        )
    }

    pub fn as_binary(&self) -> Option<&Bytes> {
        match self {
            Self::Binary(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_struct(&self) -> Option<&Struct> {
        match self {
            Self::Struct(s) => Some(s),
            _ => None,
        }
    }
}

/// A struct: its fields by id, in wire order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Struct {
    pub fields: Vec<(i16, Value)>,
}

impl Struct {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a field (builder style).
    pub fn with(mut self, id: i16, value: Value) -> Self {
        self.fields.push((id, value));
        self
    }

    /// The field with this id (the last one when repeated).
    pub fn get(&self, id: i16) -> Option<&Value> {
        self.fields
            .iter()
            .rev()
            .find(|(field, _)| *field == id)
            .map(|(_, v)| v)
    }

    /// A binary field; absent (or of another type, which Thrift skips) gives `None`.
    pub fn binary(&self, id: i16) -> Option<&Bytes> {
        self.get(id).and_then(Value::as_binary)
    }

    pub fn bool(&self, id: i16) -> Option<bool> {
        match self.get(id) {
            Some(Value::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    pub fn i32(&self, id: i16) -> Option<i32> {
        match self.get(id) {
            Some(Value::I32(v)) => Some(*v),
            _ => None,
        }
    }

    pub fn i64(&self, id: i16) -> Option<i64> {
        match self.get(id) {
            Some(Value::I64(v)) => Some(*v),
            _ => None,
        }
    }

    pub fn structure(&self, id: i16) -> Option<&Struct> {
        self.get(id).and_then(Value::as_struct)
    }

    /// A list (or set) field's elements.
    pub fn list(&self, id: i16) -> Option<&[Value]> {
        match self.get(id) {
            Some(Value::List(_, items) | Value::Set(_, items)) => Some(items),
            _ => None,
        }
    }

    /// A list of binaries; elements of another type are left out.
    pub fn binary_list(&self, id: i16) -> Option<Vec<Bytes>> {
        self.list(id)
            .map(|items| items.iter().filter_map(Value::as_binary).cloned().collect())
    }
}
