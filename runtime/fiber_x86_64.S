/* fiber_x86_64.S — context switch for fiber actors (System V x86-64).
 *
 * lprt__ctx_switch(void **save_sp, void *new_sp): push the callee-saved
 * registers on the current stack, store its sp in *save_sp, load new_sp and
 * pop the other context's registers. A fresh fiber stack is laid out by
 * fiber.c so that the first switch "returns" into lprt__fiber_trampoline with
 * r12 = argument and r13 = entry function.                                 */
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

    .section .note.GNU-stack,"",@progbits
