#include "textflag.h"

// func indexClassAVX2(s []byte, tab *classTable) int
//
// s is a multiple of 32 bytes long. A byte b is in the class when
// tab[b&15] & tab[32+b>>4] is not zero (each table is held twice, once per
// 128-bit lane, as VPSHUFB looks up within lanes). Returns the index of the
// first such byte, or -1.
TEXT ·indexClassAVX2(SB), NOSPLIT, $0-40
	MOVQ	s_base+0(FP), SI
	MOVQ	s_len+8(FP), BX
	MOVQ	tab+24(FP), AX
	VMOVDQU	(AX), Y1
	VMOVDQU	32(AX), Y2
	MOVL	$0x0f, DX
	MOVQ	DX, X3
	VPBROADCASTB	X3, Y3
	VPXOR	Y0, Y0, Y0
	MOVQ	SI, DI
	CMPQ	BX, $64
	JB	tail32

loop64:
	VMOVDQU	(DI), Y4
	VMOVDQU	32(DI), Y7
	VPSRLW	$4, Y4, Y5
	VPAND	Y3, Y4, Y4
	VPAND	Y3, Y5, Y5
	VPSHUFB	Y4, Y1, Y4
	VPSHUFB	Y5, Y2, Y5
	VPAND	Y4, Y5, Y4
	VPSRLW	$4, Y7, Y8
	VPAND	Y3, Y7, Y7
	VPAND	Y3, Y8, Y8
	VPSHUFB	Y7, Y1, Y7
	VPSHUFB	Y8, Y2, Y8
	VPAND	Y7, Y8, Y7
	VPOR	Y4, Y7, Y9
	VPTEST	Y9, Y9
	JNZ	found64
	ADDQ	$64, DI
	SUBQ	$64, BX
	CMPQ	BX, $64
	JAE	loop64

tail32:
	CMPQ	BX, $32
	JB	none
	VMOVDQU	(DI), Y4
	VPSRLW	$4, Y4, Y5
	VPAND	Y3, Y4, Y4
	VPAND	Y3, Y5, Y5
	VPSHUFB	Y4, Y1, Y4
	VPSHUFB	Y5, Y2, Y5
	VPAND	Y4, Y5, Y4
	VPTEST	Y4, Y4
	JNZ	found32
	ADDQ	$32, DI
	SUBQ	$32, BX
	JMP	tail32

none:
	MOVQ	$-1, ret+32(FP)
	VZEROUPPER
	RET

found64:
	VPCMPEQB	Y0, Y4, Y4
	VPMOVMSKB	Y4, CX
	NOTL	CX
	TESTL	CX, CX
	JNZ	at
	ADDQ	$32, DI
	VPCMPEQB	Y0, Y7, Y7
	VPMOVMSKB	Y7, CX
	NOTL	CX
	JMP	at

found32:
	VPCMPEQB	Y0, Y4, Y4
	VPMOVMSKB	Y4, CX
	NOTL	CX

at:
	BSFL	CX, CX
	SUBQ	SI, DI
	ADDQ	CX, DI
	MOVQ	DI, ret+32(FP)
	VZEROUPPER
	RET
