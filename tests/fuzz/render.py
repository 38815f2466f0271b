"""A kernel as Python source: one statement per node, the loads first, the store last."""

from __future__ import annotations

from .program import Input, Kernel, Layout, Node, Shape, numel, walk

COMBINE = {
    "add": "a + b",
    "max": "tl.maximum(a, b)",
    "xor": "a ^ b",
    "or": "a | b",
}


def offsets(shape: Shape, base: str, layout: Layout | None = None) -> str:
    """``base`` plus the offsets of a tile of ``shape`` laid out as ``layout`` (row-major)."""
    if not shape:
        return base
    layout = layout or Layout()
    terms = []
    for axis, (size, stride) in enumerate(zip(shape, layout.strides(shape))):
        index = ", ".join(":" if k == axis else "None" for k in range(len(shape)))
        ar = f"tl.arange(0, {size})"
        if axis in layout.flipped:
            ar = f"({size - 1} - {ar})"
        ar += f"[{index}]" if len(shape) > 1 else ""
        terms.append(ar if stride == 1 else f"{ar} * {stride}")
    return f"{base} + " + " + ".join(terms)


def _shape_text(shape: Shape) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _expr(node: Node, names: dict[int, str], buffers: list[str]) -> str:  # one case per op
    a = [names[id(x)] for x in node.args]
    op, attr = node.op, node.attr
    if op == "bin" and attr[0] == "umulhi":
        return f"tl.umulhi({a[0]}, {a[1]})"
    if op == "bin" or op == "cmp":
        return f"({a[0]} {attr[0]} {a[1]})"
    if op == "where":
        return f"tl.where({a[0]}, {a[1]}, {a[2]})"
    if op == "minmax":
        nan = ", propagate_nan=tl.PropagateNan.ALL" if attr[1] else ""
        return f"tl.{attr[0]}({a[0]}, {a[1]}{nan})"
    if op == "unary":
        return {"neg": f"-{a[0]}", "invert": f"~{a[0]}"}.get(attr[0], f"tl.{attr[0]}({a[0]})")
    if op == "cast":
        t, bitcast, *rtz = attr
        if rtz:
            return f'{a[0]}.to({t.tl}, fp_downcast_rounding="rtz")'
        return f"{a[0]}.to({t.tl}, bitcast=True)" if bitcast else f"{a[0]}.to({t.tl})"
    if op == "reduce":
        kind, axis, keep, member = attr
        args = ([] if axis is None else [f"axis={axis}"]) + (["keep_dims=True"] if keep else [])
        if kind in ("argmax", "argmin") and axis is None:
            args.insert(0, "axis=None")
        if member:
            return f"{a[0]}.{kind}({', '.join(args)})"
        return f"tl.{kind}({', '.join([a[0], *args])})"
    if op == "scan":
        kind, axis, reverse = attr
        rev = ", reverse=True" if reverse else ""
        if kind.startswith("scan_"):
            return f"tl.associative_scan({a[0]}, {axis}, combine_{kind[5:]}{rev})"
        return f"tl.{kind}({a[0]}, axis={axis}{rev})"
    if op == "reshape":
        return f"tl.reshape({a[0]}, {_shape_text(attr[0])})"
    if op == "permute":
        perm, short = attr
        if tuple(perm) == (1, 0) and short:
            return f"tl.trans({a[0]})"
        return f"tl.permute({a[0]}, {tuple(perm)})" if short else f"{a[0]}.permute{tuple(perm)}"
    if op == "expand_dims":
        axis, subscript = attr
        if subscript:
            index = ", ".join("None" if k == axis else ":" for k in range(len(node.shape)))
            return f"{a[0]}[{index}]"
        return f"tl.expand_dims({a[0]}, {axis})"
    if op == "broadcast_to":
        return f"tl.broadcast_to({a[0]}, {_shape_text(attr[0])})"
    if op in ("join", "interleave"):
        return f"tl.{op}({a[0]}, {a[1]})"
    if op == "cat":
        return f"tl.cat({a[0]}, {a[1]}, can_reorder=True)"
    if op == "flip":
        return f"tl.flip({a[0]}, {attr[0]})"
    if op == "sort":
        return f"tl.sort({a[0]}, descending=True)" if attr[0] else f"{a[0]}.sort()"
    if op == "topk":
        return f"tl.topk({a[0]}, {attr[0]})"
    if op == "gather":
        return f"tl.gather({a[0]}, {a[1]}, {attr[0]})"
    if op == "math":
        return f"tl.{attr[0]}({', '.join(a)})"
    if op == "gather_load":
        k, size, masked, other = attr
        at = f"(pid * {size} + ({a[0]} & {size - 1}))"
        mask = f", mask={at} < n{k}" if masked else ""
        fill = f", other={other!r}" if other is not None else ""
        return f"tl.load({buffers[k]} + {at}{mask}{fill})"
    if op == "dot":  # fp32 in full precision: tf32 would differ between backends
        ieee = ', input_precision="ieee"' if node.args[0].dtype.name == "float32" else ""
        return f"tl.dot({', '.join(a)}{ieee})"
    raise AssertionError(op)


def _leaf(node: Node) -> str | None:
    op, attr = node.op, node.attr
    if op == "lit":
        return repr(attr[0])
    if op in ("const", "scalar"):
        return attr[0]
    if op == "load":
        return f"x{attr[0]}"
    if op == "pid":
        return "pid"
    if op == "arange":
        (axis,) = attr
        s = node.shape
        if len(s) == 1:
            return f"tl.arange(0, {s[0]})"
        index = ", ".join(":" if k == axis else "None" for k in range(len(s)))
        return f"tl.broadcast_to(tl.arange(0, {s[axis]})[{index}], {_shape_text(s)})"
    if op == "full":
        return f"tl.full({_shape_text(node.shape)}, {attr[0]!r}, {node.dtype.tl})"
    return None


def _loop(node: Node, v: str, names: dict[int, str]) -> list[str]:
    sym, (start, stop, by), form, runtime = node.attr
    init, step = (names[id(a)] for a in node.args)
    bounds = f"{start}, {runtime or stop}, {by}"
    loop = {2: "tl.static_range", 3: "tl.range"}.get(form, "range") + f"({bounds})"
    body = f"{v} = ({v} {sym} {step}).to({node.dtype.tl})"
    if form == 1:
        return [f"    {v} = {init}", f"    for i in {loop}:", "        if i % 2 == 0:",
                f"            {body}"]  # fmt: skip
    if form == 4:
        return [f"    {v} = {init}", f"    i_{v} = {start}", f"    while i_{v} < {runtime or stop}:",
                f"        {body}", f"        i_{v} += {by}"]  # fmt: skip
    return [f"    {v} = {init}", f"    for i in {loop}:", f"        {body}"]


def _slice(x: Input, index: int, name: str, buffers: list[str]) -> list[str]:
    """Loads trip i's slice of input ``index`` (its first axis) into ``name``."""
    _, *shape = x.shape
    inner = Layout(tuple(a - 1 for a in x.layout.order[1:]), tuple(a - 1 for a in x.layout.flipped))
    size = numel(tuple(shape))
    at = offsets(tuple(shape), f"pid * {numel(x.shape)} + i * {size}", inner)
    mask = f", mask=p{name} < n{index}" if x.masked else ""
    other = f", other={x.other!r}" if x.masked and x.other is not None else ""
    return [
        f"        p{name} = {at}",
        f"        {name} = tl.load({buffers[index]} + p{name}{mask}{other})",
    ]


def _stream_loop(node: Node, v: str, init: str, k: Kernel, buffers: list[str]) -> list[str]:
    sym, index = node.attr
    x = k.inputs[index]
    return [f"    {v} = {init}", f"    for i in range({x.shape[0]}):", *_slice(x, index, "x", buffers),
            f"        {v} = ({v} {sym} x).to({node.dtype.tl})"]  # fmt: skip


def _dot_loop(node: Node, v: str, init: str, k: Kernel, buffers: list[str]) -> list[str]:
    """``acc = tl.dot(a, b, acc)``, a and b loaded from trip i's slice of their inputs."""
    lines = [f"    {v} = {init}", f"    for i in range({node.attr[2]}):"]
    for name, index in zip("ab", node.attr[:2]):
        lines += _slice(k.inputs[index], index, name, buffers)
    ieee = ', input_precision="ieee"' if k.inputs[node.attr[0]].dtype.name == "float32" else ""
    return [*lines, f"        {v} = tl.dot(a, b, {v}{ieee})"]


def _pid(axes: int) -> str:
    """The program's number in a grid of ``axes`` axes, the first varying fastest."""
    pid = f"tl.program_id({axes - 1})"
    for axis in reversed(range(axes - 1)):
        inner = f"({pid})" if "+" in pid else pid
        pid = f"tl.program_id({axis}) + tl.num_programs({axis}) * {inner}"
    return pid


def params(k: Kernel) -> list[str]:
    names = [f"in{i}" for i in range(len(k.inputs))] + ["out"]
    names += [f"n{i}" for i in range(len(k.inputs))] + ["n_out"]
    names += [name for name, _, _ in k.scalars]
    return names + [f"{name}: tl.constexpr" for name, _ in k.constexprs]


def source(k: Kernel, name: str = "kernel") -> str:
    lines = ["import tilec", "import tilec.language as tl", ""]
    for c in k.combine:
        lines += ["", "@tilec.jit", f"def combine_{c}(a, b):", f"    return {COMBINE[c]}", ""]
    lines += [
        "",
        "@tilec.jit",
        f"def {name}({', '.join(params(k))}):",
        f"    pid = {_pid(len(k.launch_grid))}",
    ]
    buffers = ["out" if x.aliases_out else f"in{i}" for i, x in enumerate(k.inputs)]
    for i, x in enumerate(k.inputs):
        lines.append(f"    o{i} = {offsets(x.shape, f'pid * {numel(x.shape)}', x.layout)}")
        mask = f", mask=o{i} < n{i}" if x.masked else ""
        other = f", other={x.other!r}" if x.masked and x.other is not None else ""
        lines.append(f"    x{i} = tl.load({buffers[i]} + o{i}{mask}{other})")
    if k.scribble >= 0:  # the loads above read what was there before
        i = k.scribble
        mask = f", mask=o{i} < n{i}" if k.inputs[i].masked else ""
        lines.append(f"    tl.store(out + o{i}, 1{mask})")
    names: dict[int, str] = {}
    for node in walk(k.root):
        leaf = _leaf(node)
        if leaf is not None:
            names[id(node)] = leaf
            continue
        v = names[id(node)] = f"v{len(names)}"
        if node.op == "loop":
            lines += _loop(node, v, names)
        elif node.op == "stream_loop":
            lines += _stream_loop(node, v, names[id(node.args[0])], k, buffers)
        elif node.op == "dot_loop":
            lines += _dot_loop(node, v, names[id(node.args[0])], k, buffers)
        elif node.op == "split":
            first, second = (v, "_") if node.attr[0] == 0 else ("_", v)
            lines.append(f"    {first}, {second} = tl.split({names[id(node.args[0])]})")
        else:
            lines.append(f"    {v} = {_expr(node, names, buffers)}")
    atomic = k.store != "store"
    base = "pid * 0" if atomic else f"pid * {numel(k.root.shape)}"
    lines.append(f"    oo = {offsets(k.root.shape, base, k.out_layout)}")
    mask = ", mask=oo < n_out" if k.out_masked else ""
    value = names[id(k.root)]
    if k.store == "atomic_cas":  # every third lane compares with a value it does not hold
        lines.append("    cur = tl.load(out + oo)")
        lines.append(
            f"    old = tl.atomic_cas(out + oo, tl.where(oo % 3 == 0, cur + 1, cur), {value})"
        )
    else:
        call = f"tl.{k.store}" if atomic else "tl.store"
        lines.append(f"    {'old = ' if k.returns_old else ''}{call}(out + oo, {value}{mask})")
    if k.returns_old:
        lines.append(f"    tl.store(out + {numel(k.root.shape)} + oo, old{mask})")
    return "\n".join(lines) + "\n"
