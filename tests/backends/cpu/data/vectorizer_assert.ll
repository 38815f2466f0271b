; ModuleID = "softmax_rows"
target triple = "x86_64-unknown-linux-gnu"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

define internal void @"tilec.program"(ptr %".1", i32 %".2", i32 %".3", i32 %".4", i32 %".5", i32 %".6", i32 %".7", ptr %".8")
{
allocas:
  %".23" = alloca i32
  %".35" = alloca float
  %".82" = alloca [128 x float], align 64
  %".217" = alloca float
  br label %"start"
start:
  %".11" = getelementptr i64, ptr %".1", i64 0
  %".12" = load ptr, ptr %".11"
  %".13" = getelementptr i64, ptr %".1", i64 1
  %".14" = load ptr, ptr %".13"
  %".15" = getelementptr i64, ptr %".1", i64 2
  %".16" = load i32, ptr %".15"
  %".17" = getelementptr i64, ptr %".1", i64 3
  %".18" = load i32, ptr %".17"
  %".19" = getelementptr i64, ptr %".1", i64 4
  %".20" = load i32, ptr %".19"
  %".21" = getelementptr i64, ptr %".1", i64 5
  %".22" = load i32, ptr %".21"
  store i32 %".2", ptr %".23"
  br label %"for.head"
for.head:
  %".26" = load i32, ptr %".23"
  %".27" = icmp slt i32 %".26", %".20"
  %".28" = icmp sgt i32 %".26", %".20"
  %".29" = icmp sgt i32 %".5", 0
  %".30" = select  i1 %".29", i1 %".27", i1 %".28"
  br i1 %".30", label %"for.body", label %"for.end"
for.body:
  %".32" = mul i32 %".26", %".16"
  %".33" = sext i32 %".32" to i64
  %".34" = getelementptr float, ptr %".14", i64 %".33"
  store float 0xfff0000000000000, ptr %".35"
  %".37" = trunc i64 0 to i32
  %".38" = sext i32 %".37" to i64
  %".39" = sext i32 %".22" to i64
  %".40" = sub i64 %".39", %".38"
  %".41" = icmp slt i64 %".40", 0
  %".42" = select  i1 %".41", i64 0, i64 %".40"
  %".43" = icmp sgt i64 %".42", 128
  %".44" = select  i1 %".43", i64 128, i64 %".42"
  %".45" = icmp eq i64 %".44", 128
  br i1 %".45", label %"row.full", label %"row.part"
for.end:
  ret void
row.full:
  br label %"all.head"
row.part:
  br label %"on.head"
row.done:
  %".81" = load float, ptr %".35"
  %".83" = trunc i64 0 to i32
  %".84" = sext i32 %".83" to i64
  %".85" = sext i32 %".22" to i64
  %".86" = sub i64 %".85", %".84"
  %".87" = icmp slt i64 %".86", 0
  %".88" = select  i1 %".87", i64 0, i64 %".86"
  %".89" = icmp sgt i64 %".88", 128
  %".90" = select  i1 %".89", i64 128, i64 %".88"
  %".91" = icmp eq i64 %".90", 128
  br i1 %".91", label %"row.full.1", label %"row.part.1"
all.head:
  %"all" = phi  i64 [0, %"row.full"], [%".57", %"all.body"]
  %".48" = icmp slt i64 %"all", 128
  br i1 %".48", label %"all.body", label %"all.exit"
all.body:
  %".50" = load float, ptr %".35"
  %".51" = sext i32 %".37" to i64
  %".52" = getelementptr float, ptr %".34", i64 %".51"
  %".53" = getelementptr float, ptr %".52", i64 %"all"
  %".54" = load float, ptr %".53", align 4
  %".55" = call float @"llvm.maxnum.f32"(float %".50", float %".54")
  store float %".55", ptr %".35"
  %".57" = add nuw nsw i64 %"all", 1
  br label %"all.head"
all.exit:
  br label %"row.done"
on.head:
  %"on" = phi  i64 [0, %"row.part"], [%".70", %"on.body"]
  %".61" = icmp slt i64 %"on", %".44"
  br i1 %".61", label %"on.body", label %"on.exit"
on.body:
  %".63" = load float, ptr %".35"
  %".64" = sext i32 %".37" to i64
  %".65" = getelementptr float, ptr %".34", i64 %".64"
  %".66" = getelementptr float, ptr %".65", i64 %"on"
  %".67" = load float, ptr %".66", align 4
  %".68" = call float @"llvm.maxnum.f32"(float %".63", float %".67")
  store float %".68", ptr %".35"
  %".70" = add nuw nsw i64 %"on", 1
  br label %"on.head"
on.exit:
  br label %"off.head"
off.head:
  %"off" = phi  i64 [%".44", %"on.exit"], [%".78", %"off.body"]
  %".73" = icmp slt i64 %"off", 128
  br i1 %".73", label %"off.body", label %"off.exit"
off.body:
  %".75" = load float, ptr %".35"
  %".76" = call float @"llvm.maxnum.f32"(float %".75", float 0xfff0000000000000)
  store float %".76", ptr %".35"
  %".78" = add nuw nsw i64 %"off", 1
  br label %"off.head", !llvm.loop !2
off.exit:
  br label %"row.done"
row.full.1:
  br label %"all.head.1"
row.part.1:
  br label %"on.head.1"
row.done.1:
  %".214" = mul i32 %".26", %".18"
  %".215" = sext i32 %".214" to i64
  %".216" = getelementptr float, ptr %".12", i64 %".215"
  store float              0x0, ptr %".217"
  br label %"e.head"
all.head.1:
  %"all.1" = phi  i64 [0, %"row.full.1"], [%".132", %"all.body.1"]
  %".94" = icmp slt i64 %"all.1", 128
  br i1 %".94", label %"all.body.1", label %"all.exit.1"
all.body.1:
  %".96" = sext i32 %".83" to i64
  %".97" = getelementptr float, ptr %".34", i64 %".96"
  %".98" = getelementptr float, ptr %".97", i64 %"all.1"
  %".99" = load float, ptr %".98", align 4
  %".100" = fsub float %".99", %".81"
  %".101" = fcmp ogt float %".100", 0x4056400000000000
  %".102" = select  i1 %".101", float 0x4056400000000000, float %".100"
  %".103" = fcmp olt float %".102", 0xc05a000000000000
  %".104" = select  i1 %".103", float 0xc05a000000000000, float %".102"
  %".105" = fmul float %".104", 0x3ff7154760000000
  %".106" = call float @"llvm.rint.f32"(float %".105")
  %".107" = fcmp uno float %".106", %".106"
  %".108" = select  i1 %".107", float              0x0, float %".106"
  %".109" = fptosi float %".108" to i32
  %".110" = call float @"llvm.fmuladd.f32"(float %".106", float 0xbfe6300000000000, float %".104")
  %".111" = call float @"llvm.fmuladd.f32"(float %".106", float 0x3f2bd01060000000, float %".110")
  %".112" = call float @"llvm.fmuladd.f32"(float 0x3f2a0d2ce0000000, float %".111", float 0x3f56e879c0000000)
  %".113" = call float @"llvm.fmuladd.f32"(float %".112", float %".111", float 0x3f81112100000000)
  %".114" = call float @"llvm.fmuladd.f32"(float %".113", float %".111", float 0x3fa5553820000000)
  %".115" = call float @"llvm.fmuladd.f32"(float %".114", float %".111", float 0x3fc5555540000000)
  %".116" = call float @"llvm.fmuladd.f32"(float %".115", float %".111", float 0x3fe0000000000000)
  %".117" = fmul float %".111", %".111"
  %".118" = call float @"llvm.fmuladd.f32"(float %".116", float %".117", float %".111")
  %".119" = fadd float %".118", 0x3ff0000000000000
  %".120" = ashr i32 %".109", 1
  %".121" = sub i32 %".109", %".120"
  %".122" = add i32 %".120", 127
  %".123" = shl i32 %".122", 23
  %".124" = bitcast i32 %".123" to float
  %".125" = fmul float %".119", %".124"
  %".126" = add i32 %".121", 127
  %".127" = shl i32 %".126", 23
  %".128" = bitcast i32 %".127" to float
  %".129" = fmul float %".125", %".128"
  %".130" = getelementptr float, ptr %".82", i64 %"all.1"
  store float %".129", ptr %".130"
  %".132" = add nuw nsw i64 %"all.1", 1
  br label %"all.head.1"
all.exit.1:
  br label %"row.done.1"
on.head.1:
  %"on.1" = phi  i64 [0, %"row.part.1"], [%".174", %"on.body.1"]
  %".136" = icmp slt i64 %"on.1", %".90"
  br i1 %".136", label %"on.body.1", label %"on.exit.1"
on.body.1:
  %".138" = sext i32 %".83" to i64
  %".139" = getelementptr float, ptr %".34", i64 %".138"
  %".140" = getelementptr float, ptr %".139", i64 %"on.1"
  %".141" = load float, ptr %".140", align 4
  %".142" = fsub float %".141", %".81"
  %".143" = fcmp ogt float %".142", 0x4056400000000000
  %".144" = select  i1 %".143", float 0x4056400000000000, float %".142"
  %".145" = fcmp olt float %".144", 0xc05a000000000000
  %".146" = select  i1 %".145", float 0xc05a000000000000, float %".144"
  %".147" = fmul float %".146", 0x3ff7154760000000
  %".148" = call float @"llvm.rint.f32"(float %".147")
  %".149" = fcmp uno float %".148", %".148"
  %".150" = select  i1 %".149", float              0x0, float %".148"
  %".151" = fptosi float %".150" to i32
  %".152" = call float @"llvm.fmuladd.f32"(float %".148", float 0xbfe6300000000000, float %".146")
  %".153" = call float @"llvm.fmuladd.f32"(float %".148", float 0x3f2bd01060000000, float %".152")
  %".154" = call float @"llvm.fmuladd.f32"(float 0x3f2a0d2ce0000000, float %".153", float 0x3f56e879c0000000)
  %".155" = call float @"llvm.fmuladd.f32"(float %".154", float %".153", float 0x3f81112100000000)
  %".156" = call float @"llvm.fmuladd.f32"(float %".155", float %".153", float 0x3fa5553820000000)
  %".157" = call float @"llvm.fmuladd.f32"(float %".156", float %".153", float 0x3fc5555540000000)
  %".158" = call float @"llvm.fmuladd.f32"(float %".157", float %".153", float 0x3fe0000000000000)
  %".159" = fmul float %".153", %".153"
  %".160" = call float @"llvm.fmuladd.f32"(float %".158", float %".159", float %".153")
  %".161" = fadd float %".160", 0x3ff0000000000000
  %".162" = ashr i32 %".151", 1
  %".163" = sub i32 %".151", %".162"
  %".164" = add i32 %".162", 127
  %".165" = shl i32 %".164", 23
  %".166" = bitcast i32 %".165" to float
  %".167" = fmul float %".161", %".166"
  %".168" = add i32 %".163", 127
  %".169" = shl i32 %".168", 23
  %".170" = bitcast i32 %".169" to float
  %".171" = fmul float %".167", %".170"
  %".172" = getelementptr float, ptr %".82", i64 %"on.1"
  store float %".171", ptr %".172"
  %".174" = add nuw nsw i64 %"on.1", 1
  br label %"on.head.1"
on.exit.1:
  br label %"off.head.1"
off.head.1:
  %"off.1" = phi  i64 [%".90", %"on.exit.1"], [%".211", %"off.body.1"]
  %".177" = icmp slt i64 %"off.1", 128
  br i1 %".177", label %"off.body.1", label %"off.exit.1"
off.body.1:
  %".179" = fsub float 0xfff0000000000000, %".81"
  %".180" = fcmp ogt float %".179", 0x4056400000000000
  %".181" = select  i1 %".180", float 0x4056400000000000, float %".179"
  %".182" = fcmp olt float %".181", 0xc05a000000000000
  %".183" = select  i1 %".182", float 0xc05a000000000000, float %".181"
  %".184" = fmul float %".183", 0x3ff7154760000000
  %".185" = call float @"llvm.rint.f32"(float %".184")
  %".186" = fcmp uno float %".185", %".185"
  %".187" = select  i1 %".186", float              0x0, float %".185"
  %".188" = fptosi float %".187" to i32
  %".189" = call float @"llvm.fmuladd.f32"(float %".185", float 0xbfe6300000000000, float %".183")
  %".190" = call float @"llvm.fmuladd.f32"(float %".185", float 0x3f2bd01060000000, float %".189")
  %".191" = call float @"llvm.fmuladd.f32"(float 0x3f2a0d2ce0000000, float %".190", float 0x3f56e879c0000000)
  %".192" = call float @"llvm.fmuladd.f32"(float %".191", float %".190", float 0x3f81112100000000)
  %".193" = call float @"llvm.fmuladd.f32"(float %".192", float %".190", float 0x3fa5553820000000)
  %".194" = call float @"llvm.fmuladd.f32"(float %".193", float %".190", float 0x3fc5555540000000)
  %".195" = call float @"llvm.fmuladd.f32"(float %".194", float %".190", float 0x3fe0000000000000)
  %".196" = fmul float %".190", %".190"
  %".197" = call float @"llvm.fmuladd.f32"(float %".195", float %".196", float %".190")
  %".198" = fadd float %".197", 0x3ff0000000000000
  %".199" = ashr i32 %".188", 1
  %".200" = sub i32 %".188", %".199"
  %".201" = add i32 %".199", 127
  %".202" = shl i32 %".201", 23
  %".203" = bitcast i32 %".202" to float
  %".204" = fmul float %".198", %".203"
  %".205" = add i32 %".200", 127
  %".206" = shl i32 %".205", 23
  %".207" = bitcast i32 %".206" to float
  %".208" = fmul float %".204", %".207"
  %".209" = getelementptr float, ptr %".82", i64 %"off.1"
  store float %".208", ptr %".209"
  %".211" = add nuw nsw i64 %"off.1", 1
  br label %"off.head.1", !llvm.loop !3
off.exit.1:
  br label %"row.done.1"
e.head:
  %"e" = phi  i64 [0, %"row.done.1"], [%".227", %"e.body"]
  %".220" = icmp slt i64 %"e", 128
  br i1 %".220", label %"e.body", label %"e.exit"
e.body:
  %".222" = load float, ptr %".217"
  %".223" = getelementptr float, ptr %".82", i64 %"e"
  %".224" = load float, ptr %".223"
  %".225" = fadd reassoc float %".222", %".224"
  store float %".225", ptr %".217"
  %".227" = add nuw nsw i64 %"e", 1
  br label %"e.head"
e.exit:
  %".229" = load float, ptr %".217"
  %".230" = trunc i64 0 to i32
  %".231" = sext i32 %".230" to i64
  %".232" = sext i32 %".22" to i64
  %".233" = sub i64 %".232", %".231"
  %".234" = icmp slt i64 %".233", 0
  %".235" = select  i1 %".234", i64 0, i64 %".233"
  %".236" = icmp sgt i64 %".235", 128
  %".237" = select  i1 %".236", i64 128, i64 %".235"
  %".238" = icmp eq i64 %".237", 128
  br i1 %".238", label %"row.full.2", label %"row.part.2"
row.full.2:
  br label %"all.head.2"
row.part.2:
  br label %"on.head.2"
row.done.2:
  %".266" = add i32 %".26", %".5"
  store i32 %".266", ptr %".23"
  br label %"for.head"
all.head.2:
  %"all.2" = phi  i64 [0, %"row.full.2"], [%".250", %"all.body.2"]
  %".241" = icmp slt i64 %"all.2", 128
  br i1 %".241", label %"all.body.2", label %"all.exit.2"
all.body.2:
  %".243" = getelementptr float, ptr %".82", i64 %"all.2"
  %".244" = load float, ptr %".243"
  %".245" = fdiv float %".244", %".229"
  %".246" = sext i32 %".230" to i64
  %".247" = getelementptr float, ptr %".216", i64 %".246"
  %".248" = getelementptr float, ptr %".247", i64 %"all.2"
  store float %".245", ptr %".248", align 4
  %".250" = add nuw nsw i64 %"all.2", 1
  br label %"all.head.2"
all.exit.2:
  br label %"row.done.2"
on.head.2:
  %"on.2" = phi  i64 [0, %"row.part.2"], [%".263", %"on.body.2"]
  %".254" = icmp slt i64 %"on.2", %".237"
  br i1 %".254", label %"on.body.2", label %"on.exit.2"
on.body.2:
  %".256" = getelementptr float, ptr %".82", i64 %"on.2"
  %".257" = load float, ptr %".256"
  %".258" = fdiv float %".257", %".229"
  %".259" = sext i32 %".230" to i64
  %".260" = getelementptr float, ptr %".216", i64 %".259"
  %".261" = getelementptr float, ptr %".260", i64 %"on.2"
  store float %".258", ptr %".261", align 4
  %".263" = add nuw nsw i64 %"on.2", 1
  br label %"on.head.2"
on.exit.2:
  br label %"row.done.2"
}

declare float @"llvm.maxnum.f32"(float %".1", float %".2")

declare float @"llvm.rint.f32"(float %".1")

declare float @"llvm.fmuladd.f32"(float %".1", float %".2", float %".3")

define void @"tilec_softmax_rows"(ptr %".1", i32 %".2", i32 %".3", i32 %".4", i64 %".5", i64 %".6", ptr %".7")
{
start:
  %".9" = zext i32 %".2" to i64
  %".10" = zext i32 %".3" to i64
  br label %"pid.head"
stop:
  ret void
pid.head:
  %"pid" = phi  i64 [%".5", %"start"], [%".25", %"next"]
  %".12" = icmp slt i64 %"pid", %".6"
  br i1 %".12", label %"pid.body", label %"pid.exit"
pid.body:
  %".14" = urem i64 %"pid", %".9"
  %".15" = udiv i64 %"pid", %".9"
  %".16" = urem i64 %".15", %".10"
  %".17" = udiv i64 %".15", %".10"
  %".18" = trunc i64 %".14" to i32
  %".19" = trunc i64 %".16" to i32
  %".20" = trunc i64 %".17" to i32
  call void @"tilec.program"(ptr %".1", i32 %".18", i32 %".19", i32 %".20", i32 %".2", i32 %".3", i32 %".4", ptr %".7")
  %".22" = load atomic i64, ptr %".7" monotonic, align 8
  %".23" = icmp ne i64 %".22", 0
  br i1 %".23", label %"stop", label %"next"
pid.exit:
  br label %"stop"
next:
  %".25" = add nuw nsw i64 %"pid", 1
  br label %"pid.head"
}

!0 = !{ !"llvm.loop.unroll.disable" }
!1 = !{ !"llvm.loop.vectorize.enable", i1 0 }
!2 = distinct !{ !2, !0, !1 }
!3 = distinct !{ !3, !0, !1 }