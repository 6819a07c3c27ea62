/* fiber_x86_64.S — context switch for fiber actors (System V x86-64).
 *
 * lprt__ctx_switch(void **save_sp, void *new_sp): push the callee-saved
 * registers on the current stack, store its sp in *save_sp, load new_sp and
 * pop the other context's registers. A fresh fiber stack is laid out by
 * fiber.c so that the first switch "returns" into lprt__fiber_trampoline with
 * r12 = argument and r13 = entry function.
 *
 * lprt__call_on_stack(void *arg, void (*fn)(void *), void *top): call fn(arg)
 * with the stack pointer at top (16-aligned), then come back to this stack
 * (a fiber's deep stack, fiber.c lprt_deep_call).                          */
    .text
    .globl lprt__ctx_switch
    .hidden lprt__ctx_switch
    .type lprt__ctx_switch, @function
lprt__ctx_switch:
    .cfi_startproc
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .cfi_endproc
    .size lprt__ctx_switch, .-lprt__ctx_switch

    .globl lprt__fiber_trampoline
    .hidden lprt__fiber_trampoline
    .type lprt__fiber_trampoline, @function
lprt__fiber_trampoline:
    .cfi_startproc
    .cfi_undefined rip
    movq %r12, %rdi
    callq *%r13
    ud2
    .cfi_endproc
    .size lprt__fiber_trampoline, .-lprt__fiber_trampoline

    .globl lprt__call_on_stack
    .hidden lprt__call_on_stack
    .type lprt__call_on_stack, @function
lprt__call_on_stack:
    .cfi_startproc
    pushq %rbp
    .cfi_def_cfa_offset 16
    .cfi_offset rbp, -16
    movq %rsp, %rbp
    .cfi_def_cfa_register rbp
    movq %rdx, %rsp
    callq *%rsi
    movq %rbp, %rsp
    popq %rbp
    .cfi_def_cfa rsp, 8
    ret
    .cfi_endproc
    .size lprt__call_on_stack, .-lprt__call_on_stack

    .section .note.GNU-stack,"",@progbits
