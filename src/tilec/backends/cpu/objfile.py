"""Checks an object file's tables and lists its undefined symbols before LLVM sees it.

LLVM's object reader and RuntimeDyld trust their input (a truncated ELF crashes the process) and
MCJIT aborts on a symbol it cannot resolve; reading the tables the loader will use here turns both
into LaunchErrors. Formats: ELF (Linux), COFF (Windows), Mach-O (macOS), 64-bit little-endian.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

from ...errors import LaunchError

_ELF_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")
_ELF_SECTION = struct.Struct("<IIQQQQIIQQ")
_ELF_SYMBOL = struct.Struct("<IBBHQQ")
_COFF_HEADER = struct.Struct("<HHIIIHH")
_COFF_SECTION = struct.Struct("<8sIIIIIIHHI")
_COFF_SYMBOL = struct.Struct("<8sIhHBB")
_MACHO_HEADER = struct.Struct("<IiiIIIII")
_MACHO_SEGMENT = struct.Struct("<II16sQQQQiiII")
_MACHO_SECTION = struct.Struct("<16s16sQQIIIIIIII")
_MACHO_NLIST = struct.Struct("<IBBHQ")
_COFF_MACHINES = (0x8664, 0xAA64)  # x86-64, arm64
# symbols the JIT linker provides itself rather than looking them up in the process
_LINKER_PROVIDED = frozenset({"_GLOBAL_OFFSET_TABLE_"})


def _bad(reason: str) -> LaunchError:
    return LaunchError(f"malformed object file: {reason}")


def _span(data: bytes, offset: int, size: int, what: str) -> None:
    if offset < 0 or size < 0 or offset + size > len(data):
        raise _bad(f"{what} lies outside the {len(data)}-byte file")


def _unpack(layout: struct.Struct, data: bytes, offset: int, what: str) -> tuple:
    _span(data, offset, layout.size, what)
    return layout.unpack_from(data, offset)


def _name(table: bytes, offset: int, what: str) -> str:
    end = table.find(b"\0", offset)
    if offset >= len(table) or end < 0:
        raise _bad(f"{what} name runs past its string table")
    return table[offset:end].decode("latin-1")


def undefined_symbols(obj: bytes) -> tuple[str, ...]:
    """The names ``obj`` needs from outside: undefined symbols that a relocation uses (the only ones
    RuntimeDyld looks up); LaunchError when the object's tables are inconsistent."""
    if obj[:4] == b"\x7fELF":
        names = _elf(obj)
    elif obj[:4] == b"\xcf\xfa\xed\xfe":
        names = _macho(obj)
    elif len(obj) >= 2 and struct.unpack_from("<H", obj)[0] in _COFF_MACHINES:
        names = _coff(obj)
    else:
        raise _bad("not a 64-bit ELF, COFF or Mach-O object")
    return tuple(sorted(set(names) - _LINKER_PROVIDED))


def _elf(obj: bytes) -> list[str]:
    ident, e_type, *_, shoff, _flags, _eh, _ph, _phn, shentsize, shnum, shstrndx = _unpack(
        _ELF_HEADER, obj, 0, "the ELF header"
    )
    if ident[4] != 2 or ident[5] != 1 or e_type != 1:
        raise _bad("not a 64-bit little-endian relocatable ELF object")
    if shentsize != _ELF_SECTION.size or shnum == 0:
        raise _bad("unexpected ELF section header size or count")
    _span(obj, shoff, shnum * shentsize, "the ELF section table")
    sections = [_ELF_SECTION.unpack_from(obj, shoff + i * shentsize) for i in range(shnum)]
    if shstrndx >= shnum or sections[shstrndx][1] != 3:
        raise _bad(f"the ELF section name table {shstrndx} is not a string table")
    names = sections[shstrndx]
    _span(obj, names[4], names[5], "the ELF section name table")
    name_table = obj[names[4] : names[4] + names[5]]
    for i, (name, kind, flags, _a, offset, size, link, _i, align, _e) in enumerate(sections):
        if flags & 0x400:  # SHF_TLS: RuntimeDyld aborts on it; kernels never use TLS
            raise _bad(f"ELF section {i} holds thread-local data")
        if i and kind != 8:  # SHT_NOBITS occupies no file space
            _span(obj, offset, size, f"ELF section {i}")
        if i:
            _name(name_table, name, f"ELF section {i}")
        if align & (align - 1) or align > 1 << 16:
            raise _bad(f"ELF section {i} has alignment {align}")
        wanted = {2: 3, 4: 2, 9: 2}.get(kind)  # symtab → strtab, relocations → symtab
        if wanted is not None and (link >= shnum or sections[link][1] != wanted):
            raise _bad(f"ELF section {i} links to section {link}, not a table of the right kind")
    undefined: dict[int, dict[int, str]] = {}  # symbol table section → {index: name}
    used: dict[int, set[int]] = {}  # symbol table section → indices relocations use
    for i, sec in enumerate(sections):
        if sec[1] == 2:  # SHT_SYMTAB
            undefined[i] = dict(_elf_symbols(obj, sections, sec, i))
        elif sec[1] in (4, 9):  # SHT_RELA, SHT_REL
            used.setdefault(sec[6], set()).update(_elf_relocations(obj, sections, sec, i))
    return [
        name for t, names in undefined.items() for n, name in names.items() if n in used.get(t, ())
    ]


def _elf_symbols(
    obj: bytes, sections: list[tuple], sec: tuple, index: int
) -> Iterator[tuple[int, str]]:
    _n, _k, _f, _a, offset, size, link, _info, _al, entsize = sec
    if entsize != _ELF_SYMBOL.size or size % entsize:
        raise _bad(f"ELF symbol table {index} has entries of {entsize} bytes")
    strtab = sections[link]
    strings = obj[strtab[4] : strtab[4] + strtab[5]]
    if strings[-1:] not in (b"", b"\0"):  # then every name inside the table is terminated
        raise _bad(f"ELF string table {link} does not end with a NUL")
    n_sections = len(sections)
    for n, (name, info, _o, shndx, _v, _s) in enumerate(
        _ELF_SYMBOL.iter_unpack(obj[offset : offset + size])
    ):
        if name and name >= len(strings):
            raise _bad(f"ELF symbol {n}'s name runs past its string table")
        if n_sections <= shndx < 0xFF00:
            raise _bad(f"ELF symbol {n} is in section {shndx} of {n_sections}")
        if info & 0xF == 6:  # STT_TLS
            raise _bad(f"ELF symbol {n} is thread-local")
        if n and name and shndx == 0 and info >> 4 != 0:  # undefined, not local
            yield n, _name(strings, name, f"ELF symbol {n}")


def _elf_relocations(obj: bytes, sections: list[tuple], sec: tuple, index: int) -> set[int]:
    _n, kind, _f, _a, offset, size, link, target, _al, entsize = sec
    if entsize != (24 if kind == 4 else 16) or size % entsize or target >= len(sections):
        raise _bad(f"ELF relocation section {index} is inconsistent")
    layout = "<QQq" if kind == 4 else "<QQ"  # SHT_RELA entries carry an addend
    entries = list(struct.iter_unpack(layout, obj[offset : offset + size]))
    symbols = {entry[1] >> 32 for entry in entries}
    if entries and (
        max(entry[0] for entry in entries) >= sections[target][5]
        or max(symbols) >= sections[link][5] // _ELF_SYMBOL.size
    ):
        raise _bad(f"ELF relocation section {index} points outside its section or symbols")
    return symbols


def _coff(obj: bytes) -> list[str]:
    _m, n_sections, _t, symoff, n_symbols, opt_size, _c = _unpack(_COFF_HEADER, obj, 0, "header")
    first = _COFF_HEADER.size + opt_size
    _span(obj, first, n_sections * _COFF_SECTION.size, "the COFF section table")
    used: set[int] = set()
    for i in range(n_sections):
        sec = _COFF_SECTION.unpack_from(obj, first + i * _COFF_SECTION.size)
        raw_size, raw_at, reloc_at, n_relocs = sec[3], sec[4], sec[5], sec[7]
        if raw_at:
            _span(obj, raw_at, raw_size, f"COFF section {i}")
        _span(obj, reloc_at, n_relocs * 10, f"COFF section {i}'s relocations")
        for r in range(n_relocs):
            address, symbol = struct.unpack_from("<II", obj, reloc_at + r * 10)
            if address >= raw_size or symbol >= n_symbols:
                raise _bad(f"COFF section {i} has a relocation outside its data or symbols")
            used.add(symbol)
    _span(obj, symoff, n_symbols * _COFF_SYMBOL.size + 4, "the COFF symbol table")
    str_at = symoff + n_symbols * _COFF_SYMBOL.size
    str_size = struct.unpack_from("<I", obj, str_at)[0]
    _span(obj, str_at, str_size, "the COFF string table")
    strings = obj[str_at : str_at + str_size]
    undefined: list[str] = []
    aux = 0
    for i in range(n_symbols):
        if aux:  # auxiliary records follow their symbol and are not symbols
            aux -= 1
            continue
        raw, value, section, _t, storage, aux = _COFF_SYMBOL.unpack_from(obj, symoff + i * 18)
        if i in used and section == 0 and storage == 2 and value == 0:  # undefined, not common
            undefined.append(_coff_name(raw, strings, i))
    return undefined


def _coff_name(raw: bytes, strings: bytes, index: int) -> str:
    if raw[:4] == b"\0\0\0\0":
        return _name(strings, struct.unpack_from("<I", raw, 4)[0], f"COFF symbol {index}")
    return raw.rstrip(b"\0").decode("latin-1")


def _macho(obj: bytes) -> list[str]:
    _magic, _cpu, _sub, filetype, ncmds, cmds_size, _f, _r = _unpack(
        _MACHO_HEADER, obj, 0, "header"
    )
    if filetype != 1:  # MH_OBJECT
        raise _bad("the Mach-O file is not a relocatable object")
    _span(obj, _MACHO_HEADER.size, cmds_size, "the Mach-O load commands")
    at, n_symbols, relocs = _MACHO_HEADER.size, 0, []
    undefined: dict[int, str] = {}
    for _ in range(ncmds):
        cmd, size = _unpack(struct.Struct("<II"), obj, at, "a Mach-O load command")
        if size < 8:
            raise _bad("a Mach-O load command has a size below 8")
        if cmd == 0x19:  # LC_SEGMENT_64
            relocs += _macho_sections(obj, at)
        elif cmd == 0x2:  # LC_SYMTAB
            symoff, n_symbols, stroff, strsize = _unpack(struct.Struct("<4I"), obj, at + 8, "")
            undefined.update(_macho_symbols(obj, symoff, n_symbols, stroff, strsize))
        at += size
    used: set[int] = set()
    for reloc_at, n_relocs, limit in relocs:
        for r in range(n_relocs):
            address, info = struct.unpack_from("<iI", obj, reloc_at + r * 8)
            external = info >> 27 & 1
            if address < 0 or address >= limit or (external and info & 0xFFFFFF >= n_symbols):
                raise _bad("a Mach-O relocation points outside its section or symbols")
            if external:
                used.add(info & 0xFFFFFF)
    return [undefined[n] for n in used if n in undefined]


def _macho_sections(obj: bytes, at: int) -> list[tuple[int, int, int]]:
    n_sections = _unpack(_MACHO_SEGMENT, obj, at, "a Mach-O segment")[9]
    first = at + _MACHO_SEGMENT.size
    _span(obj, first, n_sections * _MACHO_SECTION.size, "the Mach-O section table")
    relocs = []
    for i in range(n_sections):
        sec = _MACHO_SECTION.unpack_from(obj, first + i * _MACHO_SECTION.size)
        size, offset, reloff, nreloc, flags = sec[3], sec[4], sec[6], sec[7], sec[8]
        if flags & 0xFF not in (0x1, 0xC, 0x12):  # zero-fill sections occupy no file space
            _span(obj, offset, size, f"Mach-O section {i}")
        _span(obj, reloff, nreloc * 8, f"Mach-O section {i}'s relocations")
        relocs.append((reloff, nreloc, size))
    return relocs


def _macho_symbols(
    obj: bytes, symoff: int, n: int, stroff: int, strsize: int
) -> Iterator[tuple[int, str]]:
    _span(obj, symoff, n * _MACHO_NLIST.size, "the Mach-O symbol table")
    _span(obj, stroff, strsize, "the Mach-O string table")
    strings = obj[stroff : stroff + strsize]
    for i in range(n):
        strx, n_type, _sect, _desc, _value = _MACHO_NLIST.unpack_from(obj, symoff + i * 16)
        if n_type & 0xE0 == 0 and n_type & 0x0E == 0 and n_type & 1:  # external, undefined
            name = _name(strings, strx, f"Mach-O symbol {i}")
            yield i, name[1:] if name.startswith("_") else name
