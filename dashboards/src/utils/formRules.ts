import type { FormRule } from 'antd';
import type { TFunction } from 'i18next';
import type { Validator } from './validators';

/** An antd form rule from a pure validator: the rejection carries the translated message. */
export function ruleOf(validator: Validator, t: TFunction): FormRule {
  return {
    validator: (_rule, value) => {
      const key = validator(value);
      return key ? Promise.reject(new Error(t(key))) : Promise.resolve();
    },
  };
}

export function required(message: string): FormRule {
  return { required: true, message };
}
