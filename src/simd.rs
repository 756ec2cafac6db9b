//! The one place the crate writes `unsafe`: running code compiled for AVX2
//! once a run-time check has found that the processor has it. With the
//! network, the accumulators' update and the network's layers are about a
//! quarter of a search's instructions, and AVX2 does their vector
//! arithmetic in half as many; the builds stay portable (x86-64 without
//! AVX2, 32-bit Windows) because the plain build of the same code runs
//! wherever AVX2 is missing. The code is the same Rust, in integers, so
//! both builds give the same results.
//!
//! This module knows nothing of the rest of the crate: [`avx2_method!`]
//! defines, in the caller's module, a method that runs another method's
//! body (which should be `#[inline(always)]`, with what it calls) compiled
//! for AVX2 where the processor has it, and as it is elsewhere. Written
//! out like that (not through a closure or a trait, measured slower),
//! each build is one plain function.

/// Does this processor have AVX2 (checked once, then cached by std)?
#[inline]
pub fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `avx2_method!(fn name(&mut self, a: A, ...) -> R = Type::body);`
/// defines method `name` of `Type` that runs `self.body(a, ...)`: the
/// AVX2 build of `body` where the processor has AVX2, the plain one
/// elsewhere. `&self` works the same way.
macro_rules! avx2_method {
    ($(#[$m:meta])* $vis:vis fn $name:ident(&mut $s:ident $(, $a:ident: $t:ty)*) $(-> $r:ty)?
        = $ty:ident :: $body:ident) => {
        $crate::simd::avx2_method!(@build [$(#[$m])*] $vis $name [&mut] $s
            [$($a: $t),*] [$($r)?] $ty $body);
    };
    ($(#[$m:meta])* $vis:vis fn $name:ident(& $s:ident $(, $a:ident: $t:ty)*) $(-> $r:ty)?
        = $ty:ident :: $body:ident) => {
        $crate::simd::avx2_method!(@build [$(#[$m])*] $vis $name [&] $s
            [$($a: $t),*] [$($r)?] $ty $body);
    };
    (@build [$($attr:tt)*] $vis:vis $name:ident [$($rf:tt)+] $s:ident
        [$($a:ident: $t:ty),*] [$($r:ty)?] $ty:ident $body:ident) => {
        $($attr)*
        $vis fn $name($($rf)+ $s $(, $a: $t)*) $(-> $r)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                #[allow(unsafe_code)]
                unsafe fn avx2(this: $($rf)+ $ty $(, $a: $t)*) $(-> $r)? {
                    this.$body($($a),*)
                }
                if $crate::simd::has_avx2() {
                    // SAFETY: the processor has AVX2 (checked just
                    // above), the only requirement of a
                    // `target_feature(enable = "avx2")` function.
                    #[allow(unsafe_code)]
                    let out = unsafe { avx2($s $(, $a)*) };
                    return out;
                }
            }
            $s.$body($($a),*)
        }
    };
}

pub(crate) use avx2_method;

#[cfg(test)]
mod tests {
    struct Squares(Vec<i32>);

    impl Squares {
        #[inline(always)]
        fn sum_body(&self, k: i32) -> i32 {
            self.0.iter().map(|x| k * x * x).sum()
        }

        #[inline(always)]
        fn scale_body(&mut self, k: i32) {
            self.0.iter_mut().for_each(|x| *x *= k);
        }

        crate::simd::avx2_method!(fn sum(&self, k: i32) -> i32 = Squares::sum_body);
        crate::simd::avx2_method!(fn scale(&mut self, k: i32) = Squares::scale_body);
    }

    #[test]
    fn a_method_runs_its_body() {
        let mut s = Squares((0..100).collect());
        assert_eq!(s.sum(2), s.sum_body(2));
        s.scale(3);
        assert_eq!(s.0[7], 21);
        eprintln!("AVX2 here: {}", crate::simd::has_avx2());
    }
}
