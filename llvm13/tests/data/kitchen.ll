; LLVM bytecode format revision 3
target endian = little
target pointersize = 64
target triple = "x86_64-whale-linux"
%counter = internal constant long 7
%1 = internal constant [15 x sbyte] c"negative count\00"
%1 = internal constant [8 x sbyte] c"no case\00"

implementation   ; Functions:

declare int %abs(int)

internal int %sum(int %n) {
entry:
	%3 = cast int 0 to int
	%1 = setlt int %n, %3
	%3 = select bool %1, sbyte* getelementptr ([15 x sbyte]* %1, long 0, long 0), sbyte* null
	call void %__whale_trap(sbyte* %3)
	%1 = alloca int, uint 1
	store int %3, int* %1
	br label %head

head:
	%4 = phi int [ %3, %entry ], [ %8, %body ]
	%2 = setlt int %4, %n
	br bool %2, label %body, label %exit

body:
	%5 = load int* %1
	%6 = add int %5, %4
	store int %6, int* %1
	%7 = cast int 1 to int
	%8 = add int %4, %7
	br label %head

exit:
	%9 = load int* %1
	%2 = cast int %9 to long
	%1 = cast long %2 to short
	%10 = cast short %1 to int
	%11 = call int %abs(int %10)
	ret int %11
}

internal ulong %pick(ubyte %k, bool %flag) {
entry:
	switch ubyte %k, label %3 [
		ubyte 1, label %small
		ubyte 200, label %large ]

small:
	%3 = cast ulong 10 to ulong
	%4 = cast ulong 18446744073709551615 to ulong
	%5 = select bool %flag, ulong %3, ulong %4
	ret ulong %5

large:
	%6 = cast ubyte %k to ulong
	%4 = cast ulong %6 to ubyte
	%7 = shl ulong %6, ubyte %4
	ret ulong %7

; <label>:3
	call void %__whale_trap(sbyte* getelementptr ([8 x sbyte]* %1, long 0, long 0))
	unwind
}

declare void %__whale_trap(sbyte*)
