import { describe, expect, test } from 'vitest';
import zhCN from '../../locales/zh-CN/validation.json';
import {
  colorIsValid,
  nationalIdCheckChar,
  nationalIdIsValid,
  passwordIsStrong,
  validateAlphanumeric,
  validateName,
  validateNationalId,
  validatePassword,
  validatePhone,
  validateUsername,
} from '../validators';

const all = [validateUsername, validatePassword, validateName, validateAlphanumeric, validatePhone, validateNationalId];

describe('every validator', () => {
  test.each([undefined, null, '', '   '])('accepts an absent value (%s): required-ness is a separate rule', (value) => {
    for (const validator of all) expect(validator(value)).toBeUndefined();
  });
});

describe('username', () => {
  test.each(['admin', 'a123', 'Abc_1234567890xy'])('accepts %s', (v) => expect(validateUsername(v)).toBeUndefined());
  test.each(['1abc', '_abc', 'abc', 'abcdefghijklmnopq', 'ab-cd', 'ab cd', '用户名称'])('rejects %s', (v) =>
    expect(validateUsername(v)).toBe('validation:username'),
  );
});

describe('password strength', () => {
  test.each(['abc123', 'abcdef!', '123456#', 'Passw0rd', 'a1b2c3d4e5f6g7h8'])('accepts %s (two kinds, 6-16)', (v) =>
    expect(passwordIsStrong(v)).toBe(true),
  );
  test.each(['abcdef', '123456', '!@#$%^', 'ab12', 'a1b2c3d4e5f6g7h8i', 'abc 123', '密码abc123'])('rejects %s', (v) =>
    expect(validatePassword(v)).toBe('validation:password'),
  );
});

describe('name', () => {
  test.each(['张三', 'Zhang San', 'team-1_a', '车队A'])('accepts %s', (v) => expect(validateName(v)).toBeUndefined());
  test.each(['a@b', 'x.y', '张三!'])('rejects %s', (v) => expect(validateName(v)).toBe('validation:name'));
});

describe('alphanumeric', () => {
  test.each(['abc123', 'A_1', '京A12345'])('accepts %s', (v) => expect(validateAlphanumeric(v)).toBeUndefined());
  test.each(['a b', 'a-b', 'a.b'])('rejects %s', (v) => expect(validateAlphanumeric(v)).toBe('validation:alphanumeric'));
});

describe('phone', () => {
  test.each(['13800138000', '010-12345678', '01012345678', '0755-1234567-123', '12345678'])('accepts %s', (v) =>
    expect(validatePhone(v)).toBeUndefined(),
  );
  test.each(['1380013800', '138001380001', 'phone', '010-123', '+8613800138000'])('rejects %s', (v) =>
    expect(validatePhone(v)).toBe('validation:phone'),
  );
});

describe('national ID', () => {
  test('the check character is the weighted sum mod 11 mapped through 10X98765432', () => {
    expect(nationalIdCheckChar('11010519491231002')).toBe('X');
    expect(nationalIdCheckChar('44030019900307123')).toBe('4');
  });
  test.each(['11010519491231002X', '11010519491231002x', '440300199003071234', '11010120000229123X'])('accepts %s', (v) =>
    expect(nationalIdIsValid(v)).toBe(true),
  );
  test.each([
    ['110105194912310021', 'wrong check digit'],
    ['440300199003071235', 'wrong check digit'],
    ['11010519491331002X', 'month 13'],
    ['11010119000229123X', '29 February of a non-leap year'],
    ['01010519491231002X', 'area code starting with 0'],
    ['11010517491231002X', 'year before 1800'],
    ['1101051949123100', 'too short'],
  ])('rejects %s (%s)', (v) => expect(validateNationalId(v)).toBe('validation:nationalId'));
});

describe('zh-CN messages are the spec texts', () => {
  test.each([
    ['username', '用户名不合法（字母开头，允许4-16个字符串，允许字母数字下划线）'],
    ['password', '密码不合法（长度6~16位，数字、字母、符号至少包含其中两种）'],
    ['name', '请输入汉字、数字、字母、空格、横杠或者下划线'],
    ['alphanumeric', '请输入由字母、数字组成的字符串'],
    ['phone', '电话号码格式不正确'],
    ['nationalId', '身份证号码不合法'],
    ['oldPasswordRequired', '旧密码不能为空'],
    ['newPasswordRequired', '新密码不能为空'],
    ['confirmPasswordRequired', '确认密码不能为空'],
  ] as const)('%s', (key, text) => expect(zhCN[key]).toBe(text));
});

describe('colour (platform-spec §5)', () => {
  test('accepts hex of at least 4 characters starting with #, and rgb / rgba strings', () => {
    for (const ok of ['#fff', '#FFFA', '#1890ff', '#1890ff80', 'rgb(24, 144, 255)', 'rgb(0,0,0)', 'rgba(24,144,255,0.5)',
      'RGBA(255, 255, 255, 1)', ' #13c2c2 ']) {
      expect(colorIsValid(ok), ok).toBe(true);
    }
  });

  test('refuses anything else', () => {
    for (const bad of ['', '#', '#ff', 'fff', '#ggg', '#12345', 'red', 'rgb(256, 0, 0)', 'rgb(1, 2)', 'rgba(1, 2, 3, 2)',
      'rgb(1, 2, 3); background: url(x)', null, 42, { color: '#fff' }]) {
      expect(colorIsValid(bad), String(bad)).toBe(false);
    }
  });
});
